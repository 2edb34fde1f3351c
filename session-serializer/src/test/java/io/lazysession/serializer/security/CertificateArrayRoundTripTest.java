package io.lazysession.serializer.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.codec.CodecKind;
import java.io.InputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The servlet container's client-certificate chain ({@code jakarta.servlet.request.X509Certificate})
 * is an {@code X509Certificate[]}. Whatever a codec writes it must read back: a value the allow-list
 * refuses at read must be refused at write too (the save fails visibly), never stored and then lost.
 */
class CertificateArrayRoundTripTest {

  private static X509Certificate certificate() throws Exception {
    try (InputStream pem = CertificateArrayRoundTripTest.class.getResourceAsStream("/x509/ann.pem")) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(pem);
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_certificateChainArray_isReadBackOrRefusedAtWrite(CodecKind codec) throws Exception {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();
    X509Certificate[] chain = {certificate()};

    byte[] stored;
    try {
      stored = serializer.serialize(chain);
    } catch (ClassNotAllowedException refusedAtWrite) {
      return; // consistent: refused before anything was stored
    }

    // Stored: then it must be read back, not refused by the same allow-list.
    Object decoded = serializer.deserialize(stored);
    assertThat((Object[]) decoded).containsExactly((Object[]) chain);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_providerCertificateArray_isReadBackOrRefusedAtWrite(CodecKind codec)
      throws Exception {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();
    X509Certificate certificate = certificate();
    // sun.security.x509.X509CertImpl[]: an array typed by the provider's class
    Object array = java.lang.reflect.Array.newInstance(certificate.getClass(), 1);
    java.lang.reflect.Array.set(array, 0, certificate);

    byte[] stored;
    try {
      stored = serializer.serialize(array);
    } catch (ClassNotAllowedException refusedAtWrite) {
      return;
    }
    assertThat((Object[]) serializer.deserialize(stored)).hasSize(1);
  }
}
