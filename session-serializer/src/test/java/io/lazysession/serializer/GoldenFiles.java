package io.lazysession.serializer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * Byte vectors committed under src/test/resources as hex text. Run a test with
 * {@code -Dlazysession.golden.write=true} to (re)write them, only when a format change is intended.
 */
final class GoldenFiles {
  static final boolean WRITE = Boolean.getBoolean("lazysession.golden.write");

  private GoldenFiles() {}

  static byte[] read(String resource) {
    try (InputStream in = GoldenFiles.class.getResourceAsStream("/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("missing golden vector " + resource
            + "; run with -Dlazysession.golden.write=true to create it");
      }
      String hex = new String(in.readAllBytes(), StandardCharsets.US_ASCII).replaceAll("\\s+", "");
      return HexFormat.of().parseHex(hex);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads the vector, or writes it first when asked to. */
  static byte[] readOrWrite(String resource, byte[] current) {
    if (WRITE) {
      write(resource, current);
      return current;
    }
    return read(resource);
  }

  static void write(String resource, byte[] bytes) {
    Path path = Path.of("src/test/resources", resource);
    StringBuilder text = new StringBuilder();
    String hex = HexFormat.of().formatHex(bytes);
    for (int i = 0; i < hex.length(); i += 64) {
      text.append(hex, i, Math.min(hex.length(), i + 64)).append('\n');
    }
    try {
      Files.createDirectories(path.getParent());
      Files.writeString(path, text.toString(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Replaces every occurrence of {@code from} with {@code to} (same length) in the bytes. */
  static byte[] replace(byte[] bytes, String from, String to) {
    byte[] f = from.getBytes(StandardCharsets.US_ASCII);
    byte[] t = to.getBytes(StandardCharsets.US_ASCII);
    if (f.length != t.length) {
      throw new IllegalArgumentException("from and to must have the same length");
    }
    byte[] out = bytes.clone();
    int found = 0;
    outer:
    for (int i = 0; i + f.length <= out.length; i++) {
      for (int j = 0; j < f.length; j++) {
        if (out[i + j] != f[j]) {
          continue outer;
        }
      }
      System.arraycopy(t, 0, out, i, t.length);
      found++;
    }
    if (found == 0) {
      throw new IllegalArgumentException(from + " does not occur in the bytes");
    }
    return out;
  }
}
