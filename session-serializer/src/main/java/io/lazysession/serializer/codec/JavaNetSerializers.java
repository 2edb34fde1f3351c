package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.io.IOException;
import java.net.InetAddress;
import java.net.MalformedURLException;
import java.net.Proxy;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;

/**
 * The two {@code java.net} types a session may hold, {@link URL} and {@link URI} (Spring Security's
 * OIDC ID token holds its {@code iss} claim as a {@code URL}), written as their string form and rebuilt
 * from it. Nothing else from {@code java.net} is decoded.
 *
 * <p>Why a URL needs care: {@code URL.hashCode} and {@code URL.equals} resolve the host through DNS
 * (the "URLDNS" gadget: a {@code HashMap} keyed by a URL planted in the store makes every node that
 * decodes it send a DNS query to a host of the attacker's choosing, and blocks the decoding thread for
 * as long as the resolver takes). A URL decoded here is built with {@link NoLookupHandler}, whose host
 * address is always unknown: its {@code hashCode} and {@code equals} compare host names as strings, so
 * putting it in a hash map while decoding (or at any time later) never resolves anything. Everything
 * else about the URL behaves as usual: {@code openConnection} is delegated to the JDK's own handler for
 * its protocol. One difference remains: for a host that resolves, a decoded URL's {@code hashCode}
 * differs from that of an equal URL built by {@code new URL(..)} (whose hash uses the address), so
 * the two should not be mixed as keys of one hash map.
 *
 * <p>With JDK serialization a {@code java.net.URL} is never written: {@link JdkCodec} replaces it with
 * a {@link SerializedUrl}, whose {@code readResolve} builds the same no-lookup URL, and a stream that
 * names {@code java.net.URL} itself is refused by the allow-list. {@code URI} is safe as it is (its
 * {@code readObject} only parses, its {@code hashCode} and {@code equals} are on strings).
 *
 * <p>Stateless and thread-safe.
 */
final class JavaNetSerializers {
  private JavaNetSerializers() {}

  /**
   * A URL equal to {@code spec}'s that never looks its host up.
   *
   * @throws IllegalArgumentException if {@code spec} is not a URL this JVM can open, or one whose
   *     string form does not survive being rebuilt
   */
  @SuppressWarnings("deprecation") // URL.of(URI, URLStreamHandler) replaces these from Java 20 on
  static URL noLookupUrl(String spec) {
    URL standard;
    URL rebuilt;
    try {
      // Parsing only: neither constructor resolves the host.
      standard = new URL(spec);
      rebuilt = new URL(null, spec, new NoLookupHandler(standard));
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("cannot rebuild URL '" + spec + "': " + e.getMessage(), e);
    }
    if (!rebuilt.toExternalForm().equals(standard.toExternalForm())) {
      throw new IllegalArgumentException("cannot rebuild URL '" + spec + "' without changing it (read as '"
          + rebuilt.toExternalForm() + "')");
    }
    return rebuilt;
  }

  /**
   * The JDK handler's behaviour with the host address always unknown, which makes {@code hashCode},
   * {@code equals}, {@code sameFile} and {@code hostsEqual} compare host names as strings. Connections
   * are opened by the JDK's own handler, on a URL it parses from the same string (a URL made relative
   * to a decoded one shares this handler, so the URL to open is always the one asked about).
   */
  static final class NoLookupHandler extends URLStreamHandler {
    private final int defaultPort;

    NoLookupHandler(URL standard) {
      this.defaultPort = standard.getDefaultPort();
    }

    @Override
    protected InetAddress getHostAddress(URL url) {
      return null;
    }

    @Override
    protected int getDefaultPort() {
      return defaultPort;
    }

    @Override
    protected URLConnection openConnection(URL url) throws IOException {
      return standard(url).openConnection();
    }

    @Override
    protected URLConnection openConnection(URL url, Proxy proxy) throws IOException {
      return standard(url).openConnection(proxy);
    }

    @SuppressWarnings("deprecation") // URI.toURL would refuse some strings a URL accepts
    private static URL standard(URL url) throws MalformedURLException {
      return new URL(url.toExternalForm());
    }
  }

  /** A {@link URL} as its external form; read back with {@link #noLookupUrl}. */
  static final class UrlSerializer extends Serializer<URL> {
    UrlSerializer() {
      super(false, true);
    }

    @Override
    public void write(Kryo kryo, Output output, URL url) {
      String spec = url.toExternalForm();
      try {
        noLookupUrl(spec); // what could not be read back is not written
      } catch (IllegalArgumentException e) {
        throw new KryoException(e.getMessage(), e);
      }
      output.writeString(spec);
    }

    @Override
    public URL read(Kryo kryo, Input input, Class<? extends URL> type) {
      String spec = input.readString();
      try {
        return noLookupUrl(spec == null ? "" : spec);
      } catch (IllegalArgumentException e) {
        throw new KryoException(e.getMessage(), e);
      }
    }
  }

  /** A {@link URI} as its string form, parsed back by {@link URI#create}. */
  static final class UriSerializer extends Serializer<URI> {
    UriSerializer() {
      super(false, true);
    }

    @Override
    public void write(Kryo kryo, Output output, URI uri) {
      output.writeString(uri.toString());
    }

    @Override
    public URI read(Kryo kryo, Input input, Class<? extends URI> type) {
      String spec = input.readString();
      try {
        return URI.create(spec == null ? "" : spec);
      } catch (IllegalArgumentException e) {
        throw new KryoException("cannot parse URI: " + e.getMessage(), e);
      }
    }
  }

  /** What {@link JdkCodec} writes instead of {@code value}: a {@link SerializedUrl} for a URL. */
  static Object replaceForJdk(Object value) {
    if (value instanceof URL url) {
      return SerializedUrl.of(url);
    }
    return value;
  }
}
