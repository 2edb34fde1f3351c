package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.io.ByteArrayInputStream;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;

/**
 * A certificate of any provider's class (an {@code X509Certificate} is a
 * {@code sun.security.x509.X509CertImpl}) as its type and encoded form, rebuilt by
 * {@link CertificateFactory}: what JDK serialization writes for it too
 * ({@code Certificate.CertificateRep}). Spring Security keeps a client certificate as the
 * credentials of an {@code http.x509()} sign-in. The provider's class is never named in the bytes,
 * so none is loaded by name; the factory parses the encoded form as it parses a certificate a TLS
 * peer sends. Stateless and thread-safe.
 */
final class CertificateSerializer extends Serializer<Certificate> {
  CertificateSerializer() {
    super(false, true);
  }

  @Override
  public void write(Kryo kryo, Output output, Certificate certificate) {
    byte[] encoded;
    try {
      encoded = certificate.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new KryoException("cannot encode the " + certificate.getType() + " certificate: "
          + e.getMessage(), e);
    }
    output.writeString(certificate.getType());
    output.writeVarInt(encoded.length, true);
    output.writeBytes(encoded);
  }

  @Override
  public Certificate read(Kryo kryo, Input input, Class<? extends Certificate> type) {
    String certificateType = input.readString();
    byte[] encoded = input.readBytes(input.readVarInt(true));
    if (certificateType == null) {
      throw new KryoException("certificate without a type");
    }
    try {
      return CertificateFactory.getInstance(certificateType)
          .generateCertificate(new ByteArrayInputStream(encoded));
    } catch (CertificateException e) {
      throw new KryoException("cannot read back a " + certificateType + " certificate: "
          + e.getMessage(), e);
    }
  }
}
