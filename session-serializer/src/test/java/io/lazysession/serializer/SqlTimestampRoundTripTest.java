package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.codec.CodecKind;
import java.sql.Timestamp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * java.sql.Timestamp is allowed by default (what a Date field holds once JDBC or Hibernate loaded
 * it): its value is millis and nanos, and Timestamp.equals compares both. A codec that keeps only
 * the millis silently changes the value (an entity read back from the session is no longer equal to
 * the row, a dirty check sees a change).
 */
class SqlTimestampRoundTripTest {

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_sqlTimestampWithNanos_keepsTheNanos(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();
    Timestamp loaded = new Timestamp(1_700_000_000_123L);
    loaded.setNanos(123_456_789); // a PostgreSQL timestamp column holds microseconds

    Object decoded = serializer.deserialize(serializer.serialize(loaded));

    assertThat(decoded).isInstanceOf(Timestamp.class);
    assertThat(((Timestamp) decoded).getNanos()).isEqualTo(123_456_789);
    assertThat(decoded).isEqualTo(loaded);
  }
}
