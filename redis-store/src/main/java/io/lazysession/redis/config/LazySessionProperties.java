package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * lazysession's own settings, bound from {@code lazysession.*}:
 *
 * <table>
 *   <caption>properties</caption>
 *   <tr><td>{@code lazysession.namespace}</td><td>key prefix</td><td>{@code lazysession}</td></tr>
 *   <tr><td>{@code lazysession.codec}</td><td>{@code kryo} or {@code jdk}</td><td>{@code kryo}</td></tr>
 *   <tr><td>{@code lazysession.compression}</td><td>{@code zstd} or {@code none}</td><td>{@code zstd}</td></tr>
 *   <tr><td>{@code lazysession.compression.level}</td><td>zstd level, 1..22</td><td>3</td></tr>
 *   <tr><td>{@code lazysession.compression.min-bytes}</td><td>smaller values stay uncompressed</td><td>256</td></tr>
 *   <tr><td>{@code lazysession.allowed-packages}</td><td>extra packages allowed to decode</td><td>none</td></tr>
 *   <tr><td>{@code lazysession.on-decode-failure}</td><td>{@code drop-attribute}, {@code invalidate-session}, {@code fail}</td><td>{@code drop-attribute}</td></tr>
 *   <tr><td>{@code lazysession.near-cache.max-bytes}</td><td>near cache heap; 0 turns it off</td><td>64MB</td></tr>
 *   <tr><td>{@code lazysession.touch-interval}</td><td>staleness allowed for the stored access time; shorter than the session timeout, capped at a tenth of a session's own timeout</td><td>1% of each session's timeout, at most 60s</td></tr>
 *   <tr><td>{@code lazysession.expiry-grace}</td><td>how long Redis keeps an expired hash</td><td>5m</td></tr>
 *   <tr><td>{@code lazysession.cleanup-interval}</td><td>how often each node sweeps for expired sessions</td><td>10s</td></tr>
 *   <tr><td>{@code lazysession.durability.replicas}</td><td>replicas that must acknowledge each save (WAIT); 0 turns it off</td><td>0</td></tr>
 *   <tr><td>{@code lazysession.durability.timeout}</td><td>how long a save waits for them; shorter than {@code spring.data.redis.timeout}</td><td>1s</td></tr>
 * </table>
 *
 * <p>Durations take a unit ({@code 250ms}, {@code 30s}, {@code 5m}) or ISO-8601 ({@code PT5M}); a bare
 * number is in seconds, like Spring Boot's session timeouts.
 *
 * <p>{@code lazysession.compression} is both a value and the parent of {@code .level} and
 * {@code .min-bytes}, which a {@code @ConfigurationProperties} bean cannot express; so the values are
 * bound one by one with {@link Binder} and checked when bound. Mutable; not thread-safe.
 */
public final class LazySessionProperties {
  public static final String PREFIX = "lazysession";

  private String namespace = LazyRedisSessionRepository.DEFAULT_NAMESPACE;
  private String codec = "kryo";
  private String compression = "zstd";
  private int compressionLevel = Compression.DEFAULT_LEVEL;
  private int compressionMinBytes = Compression.DEFAULT_MIN_BYTES;
  private List<String> allowedPackages = new ArrayList<>();
  private String onDecodeFailure = DecodeFailurePolicy.DROP_ATTRIBUTE.propertyValue();
  private DataSize nearCacheMaxBytes = DataSize.ofMegabytes(64);
  private @Nullable Duration touchInterval;
  private Duration expiryGrace = LazyRedisSessionRepository.DEFAULT_EXPIRY_GRACE;
  private Duration cleanupInterval = LazyRedisSessionRepository.DEFAULT_CLEANUP_INTERVAL;
  private int durabilityReplicas;
  private Duration durabilityTimeout = LazyRedisSessionRepository.DEFAULT_DURABILITY_TIMEOUT;

  /** Binds {@code lazysession.*} from the environment; absent values keep their defaults. */
  public static LazySessionProperties bind(Environment environment) {
    Binder binder = Binder.get(environment);
    LazySessionProperties p = new LazySessionProperties();
    binder.bind(PREFIX + ".namespace", String.class).ifBound(p::setNamespace);
    binder.bind(PREFIX + ".codec", String.class).ifBound(p::setCodec);
    binder.bind(PREFIX + ".compression", String.class).ifBound(p::setCompression);
    binder.bind(PREFIX + ".compression.level", Integer.class).ifBound(p::setCompressionLevel);
    binder.bind(PREFIX + ".compression.min-bytes", Integer.class)
        .ifBound(p::setCompressionMinBytes);
    binder.bind(PREFIX + ".allowed-packages", Bindable.listOf(String.class))
        .ifBound(p::setAllowedPackages);
    binder.bind(PREFIX + ".on-decode-failure", String.class).ifBound(p::setOnDecodeFailure);
    binder.bind(PREFIX + ".near-cache.max-bytes", DataSize.class)
        .ifBound(p::setNearCacheMaxBytes);
    binder.bind(PREFIX + ".touch-interval", DurationProperties.SECONDS).ifBound(p::setTouchInterval);
    binder.bind(PREFIX + ".expiry-grace", DurationProperties.SECONDS).ifBound(p::setExpiryGrace);
    binder.bind(PREFIX + ".cleanup-interval", DurationProperties.SECONDS).ifBound(p::setCleanupInterval);
    binder.bind(PREFIX + ".durability.replicas", Integer.class).ifBound(p::setDurabilityReplicas);
    binder.bind(PREFIX + ".durability.timeout", DurationProperties.SECONDS).ifBound(p::setDurabilityTimeout);
    return p;
  }

  /**
   * The serializer these settings describe.
   *
   * @param defaultPackages packages allowed on top of {@code allowed-packages} (the application's)
   * @throws IllegalArgumentException naming the property to change
   */
  public AttributeSerializer serializer(Collection<String> defaultPackages,
      @Nullable ClassLoader classLoader) {
    CodecKind codecKind = CodecKind.fromProperty(codec);
    ClassAllowList.Builder allowList = ClassAllowList.builder();
    allowList.allowPackages(defaultPackages);
    allowList.allowPackages(allowedPackages);
    AttributeSerializer.Builder builder = AttributeSerializer.builder()
        .codec(codecKind)
        .compression(compression())
        .allowList(allowList.build());
    if (classLoader != null) {
      builder.classLoader(classLoader);
    }
    return builder.build();
  }

  /** The compression these settings describe; fails naming the property. */
  public Compression compression() {
    String kind = compression.trim().toLowerCase(Locale.ROOT);
    if (kind.equals("none")) {
      return Compression.none();
    }
    if (!kind.equals("zstd")) {
      throw new IllegalArgumentException(
          "lazysession.compression must be 'zstd' or 'none', was '" + compression + "'");
    }
    try {
      return Compression.zstd(compressionLevel, compressionMinBytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("lazysession.compression.level / min-bytes: "
          + e.getMessage(), e);
    }
  }

  /**
   * Fails naming both properties when durability is on and its timeout is not shorter than the
   * command timeout (the WAIT would time out as a command before it could answer).
   */
  public void checkDurabilityTimeout(Duration commandTimeout) {
    if (durabilityReplicas < 0) {
      throw new IllegalArgumentException("lazysession.durability.replicas must be >= 0, was "
          + durabilityReplicas);
    }
    if (durabilityReplicas > 0 && durabilityTimeout.compareTo(commandTimeout) >= 0) {
      throw new IllegalArgumentException("lazysession.durability.timeout (" + durabilityTimeout
          + ") must be shorter than spring.data.redis.timeout (" + commandTimeout + ")");
    }
  }

  /**
   * Fails naming both properties when {@code lazysession.touch-interval} is set and not shorter than
   * the session timeout (read-only requests would never keep a session alive).
   */
  public void checkTouchInterval(Duration sessionTimeout) {
    if (touchInterval != null && !sessionTimeout.isNegative()
        && touchInterval.compareTo(sessionTimeout) >= 0) {
      throw new IllegalArgumentException("lazysession.touch-interval (" + touchInterval
          + ") must be shorter than the session timeout (spring.session.timeout or "
          + "server.servlet.session.timeout, " + sessionTimeout + ")");
    }
  }

  /** The decode failure policy; fails naming the property and its accepted values. */
  public DecodeFailurePolicy decodeFailurePolicy() {
    return DecodeFailurePolicy.fromProperty(onDecodeFailure);
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getCodec() {
    return codec;
  }

  public void setCodec(String codec) {
    this.codec = codec;
  }

  public String getCompression() {
    return compression;
  }

  public void setCompression(String compression) {
    this.compression = compression;
  }

  public int getCompressionLevel() {
    return compressionLevel;
  }

  public void setCompressionLevel(int compressionLevel) {
    this.compressionLevel = compressionLevel;
  }

  public int getCompressionMinBytes() {
    return compressionMinBytes;
  }

  public void setCompressionMinBytes(int compressionMinBytes) {
    this.compressionMinBytes = compressionMinBytes;
  }

  public List<String> getAllowedPackages() {
    return allowedPackages;
  }

  public void setAllowedPackages(List<String> allowedPackages) {
    this.allowedPackages = new ArrayList<>(allowedPackages);
  }

  public String getOnDecodeFailure() {
    return onDecodeFailure;
  }

  public void setOnDecodeFailure(String onDecodeFailure) {
    this.onDecodeFailure = onDecodeFailure;
  }

  public DataSize getNearCacheMaxBytes() {
    return nearCacheMaxBytes;
  }

  public void setNearCacheMaxBytes(DataSize nearCacheMaxBytes) {
    this.nearCacheMaxBytes = nearCacheMaxBytes;
  }

  public @Nullable Duration getTouchInterval() {
    return touchInterval;
  }

  public void setTouchInterval(@Nullable Duration touchInterval) {
    this.touchInterval = touchInterval;
  }

  public Duration getExpiryGrace() {
    return expiryGrace;
  }

  public void setExpiryGrace(Duration expiryGrace) {
    this.expiryGrace = expiryGrace;
  }

  public Duration getCleanupInterval() {
    return cleanupInterval;
  }

  public int getDurabilityReplicas() {
    return durabilityReplicas;
  }

  public void setDurabilityReplicas(int durabilityReplicas) {
    this.durabilityReplicas = durabilityReplicas;
  }

  public Duration getDurabilityTimeout() {
    return durabilityTimeout;
  }

  public void setDurabilityTimeout(Duration durabilityTimeout) {
    this.durabilityTimeout = durabilityTimeout;
  }

  public void setCleanupInterval(Duration cleanupInterval) {
    this.cleanupInterval = cleanupInterval;
  }
}
