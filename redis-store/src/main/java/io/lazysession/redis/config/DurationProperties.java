package io.lazysession.redis.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.core.annotation.MergedAnnotation;

/**
 * Binds duration properties with an explicit unit for bare numbers, as Spring Boot's own
 * {@code @DurationUnit} fields do: {@code spring.session.timeout=1800} is 30 minutes (Boot declares it
 * in seconds), while a bare {@link Duration} bind would read it as 1.8 seconds.
 */
final class DurationProperties {
  /** For properties whose bare numbers are seconds (session timeouts and every lazysession one). */
  static final Bindable<Duration> SECONDS = in(ChronoUnit.SECONDS);
  /** For properties whose bare numbers are milliseconds ({@code spring.data.redis.timeout}). */
  static final Bindable<Duration> MILLIS = in(ChronoUnit.MILLIS);

  private DurationProperties() {}

  private static Bindable<Duration> in(ChronoUnit unit) {
    DurationUnit annotation =
        MergedAnnotation.of(DurationUnit.class, Map.of("value", unit)).synthesize();
    return Bindable.of(Duration.class).withAnnotations(annotation);
  }
}
