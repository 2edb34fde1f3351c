package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.SerializationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code java.net.URL} and {@code URI} round-trip through both codecs with the default allow-list, a
 * decoded URL never resolves its host (not while a {@code HashMap} keyed by it is rebuilt, nor later in
 * {@code hashCode}/{@code equals}), and nothing else from {@code java.net} decodes.
 *
 * <p>"Never resolves" is shown on {@code localhost}, which resolves from the hosts file without a
 * network: the JDK's {@code URL.hashCode} adds the host's address ({@code 127.0.0.1}), a URL that
 * never looks up adds the hash of the host name instead. So the hash code tells, without timing,
 * whether a lookup took place.
 */
class JavaNetSerializersTest {
  private static final ClassLoader LOADER = JavaNetSerializersTest.class.getClassLoader();

  static Stream<Codec> codecs() {
    return Stream.of(Codecs.kryo(ClassAllowList.jdkOnly(), LOADER), Codecs.jdk(ClassAllowList.jdkOnly(), LOADER));
  }

  /** URL.hashCode as the JDK computes it when the host address is unknown. */
  private static int hashWithoutLookup(URL url) {
    int port = url.getPort() == -1 ? url.getDefaultPort() : url.getPort();
    return url.getProtocol().hashCode() + url.getHost().toLowerCase().hashCode()
        + url.getFile().hashCode() + port + (url.getRef() == null ? 0 : url.getRef().hashCode());
  }

  private static Object roundTrip(Codec codec, Object value) {
    byte[] bytes = codec.encode(value);
    return codec.decode(bytes, 0, bytes.length);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void decode_url_equalUrlWithSameParts(Codec codec) throws Exception {
    URL url = new URL("https://user@idp.example.com:8443/realms/shop/path?q=a%20b&x=1#frag");

    URL decoded = (URL) roundTrip(codec, url);

    assertThat(decoded.toExternalForm()).isEqualTo(url.toExternalForm());
    assertThat(decoded.getUserInfo()).isEqualTo("user");
    assertThat(decoded.getDefaultPort()).isEqualTo(443);
    assertThat(decoded.toURI()).isEqualTo(url.toURI());
    assertThat(decoded.equals(url)).isTrue();
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void decode_uri_equalUri(Codec codec) {
    URI uri = URI.create("urn:example:shop:42");

    assertThat(roundTrip(codec, uri)).isEqualTo(uri);
    assertThat(roundTrip(codec, URI.create("https://idp.example.com/a?b=c#d")))
        .isEqualTo(URI.create("https://idp.example.com/a?b=c#d"));
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void decode_hashMapKeyedByUrl_noHostLookup(Codec codec) throws Exception {
    URL original = new URL("http://localhost/probe");
    assertThat(InetAddress.getByName("localhost").isLoopbackAddress()).as("localhost resolves here").isTrue();
    assertThat(original.hashCode()).as("the JDK's own URL looks its host up")
        .isNotEqualTo(hashWithoutLookup(original));

    @SuppressWarnings("unchecked")
    Map<URL, String> decoded = (Map<URL, String>) roundTrip(codec,
        new HashMap<>(Map.of(new URL("http://localhost/probe"), "v")));

    URL key = decoded.keySet().iterator().next();
    assertThat(key.hashCode()).isEqualTo(hashWithoutLookup(key));
    assertThat(key.equals(new URL("http://LOCALHOST/probe"))).isTrue();
    assertThat(decoded.get(key)).isEqualTo("v");
  }

  @Test
  void noLookupUrl_opensConnectionsLikeTheJdk(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("greeting.txt"), "hello", StandardCharsets.UTF_8);
    URL url = JavaNetSerializers.noLookupUrl(file.toUri().toURL().toExternalForm());

    URLConnection connection = url.openConnection();
    try (var in = connection.getInputStream()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
    }
    Files.writeString(dir.resolve("other.txt"), "other", StandardCharsets.UTF_8);
    @SuppressWarnings("deprecation")
    URL relative = new URL(url, "other.txt");
    try (var in = relative.openStream()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("other");
    }
  }

  @Test
  void decodeJdk_streamNamingJavaNetUrl_refused() throws Exception {
    // What an attacker with write access to Redis would plant: the URLDNS gadget, written by a plain
    // ObjectOutputStream (not by the codec, which writes a SerializedUrl instead).
    byte[] hostile = javaSerialize(new HashMap<>(Map.of(new URL("http://attacker.invalid/"), "v")));
    Codec jdk = Codecs.jdk(ClassAllowList.jdkOnly(), LOADER);

    assertThatThrownBy(() -> jdk.decode(hostile, 0, hostile.length))
        .isInstanceOf(ClassNotAllowedException.class)
        .satisfies(e -> assertThat(((ClassNotAllowedException) e).className()).isEqualTo("java.net.URL"));
  }

  @Test
  void isAllowed_javaNet_onlyUriAndUrlClass() {
    ClassAllowList defaults = ClassAllowList.jdkOnly();

    assertThat(defaults.isAllowed("java.net.URI")).isTrue();
    assertThat(defaults.isAllowed(URL.class)).isTrue();
    for (String other : List.of("java.net.URL", "java.net.InetAddress", "java.net.Inet4Address",
        "java.net.InetSocketAddress", "java.net.URLClassLoader", "java.net.HttpCookie", "java.net.Socket")) {
      assertThat(defaults.isAllowed(other)).as(other).isFalse();
    }
  }

  @Test
  void decodeJdk_streamNamingJavaNetUrlWithJavaNetAllowed_stillRefused() throws Exception {
    byte[] hostile = javaSerialize(new HashMap<>(Map.of(new URL("http://attacker.invalid/"), "v")));
    Codec jdk = Codecs.jdk(ClassAllowList.builder().allowPackage("java.net").build(), LOADER);

    assertThat(jdk.allowList().isAllowed("java.net.InetAddress")).isTrue();
    assertThatThrownBy(() -> jdk.decode(hostile, 0, hostile.length))
        .isInstanceOf(ClassNotAllowedException.class)
        .satisfies(e -> assertThat(((ClassNotAllowedException) e).className()).isEqualTo("java.net.URL"));
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void encode_otherJavaNetClass_refused(Codec codec) throws Exception {
    Object address = InetAddress.getByAddress("db", new byte[] {10, 0, 0, 1});

    assertThatThrownBy(() -> codec.encode(new HashMap<>(Map.of("a", address))))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("java.net.Inet");
  }

  private static byte[] javaSerialize(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
