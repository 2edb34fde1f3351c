package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.EncryptionKeySource;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.SessionEncryption;
import io.lazysession.redis.SessionBudget;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * lazysession's own settings, {@code lazysession.*}. Immutable and thread-safe. The defaults are
 * written once, here (the {@code @DefaultValue}s), and both Spring Boot's auto-configuration and
 * {@link EnableLazyHttpSession} bind through {@link #bind(Binder)}, so they agree by construction.
 * Every value is checked when bound; an error names the property to change.
 *
 * <p>Durations take a unit ({@code 250ms}, {@code 30s}, {@code 5m}) or ISO-8601 ({@code PT5M}); a
 * bare number is in seconds, like Spring Boot's session timeouts.
 *
 * <p>{@code lazysession.compression} is both a value ({@code zstd}, {@code none}) and the parent of
 * {@code .level} and {@code .min-bytes}, so those two are components of their own, named with
 * {@code @Name}, rather than a nested object. YAML cannot give one key both a value and children,
 * so {@code lazysession.compression.algorithm} says the same as {@code lazysession.compression};
 * after binding, {@link #compression()} holds the one in force and {@link #compressionAlgorithm()}
 * is null.
 *
 * @param namespace Key prefix in Redis: letters, digits and -_.: only.
 * @param codec What attribute values are written with: kryo or jdk. Every codec is read whatever
 *     is written, so a cluster can switch in a rolling deploy.
 * @param compression Compression of attribute values: zstd or none. In YAML, where a key cannot
 *     have both a value and children, write it as compression.algorithm.
 * @param compressionLevel zstd level, from 1 (fastest) to 22 (smallest).
 * @param compressionMinBytes Values that encode to fewer bytes are stored uncompressed.
 * @param compressionAlgorithm Compression of attribute values, zstd or none: the same as
 *     lazysession.compression, for YAML files that nest compression.level under compression.
 * @param compressionDictionary The zstd dictionary of attribute values: trained and shared by the
 *     nodes (the default), pinned to a file, or off.
 * @param allowedPackages Packages whose classes may be decoded, on top of JDK types, the Spring
 *     portfolio's session classes and the application's own packages (see
 *     allow-organization-packages).
 * @param immutableTypes Application classes (full names, such as com.example.shop.Money) whose
 *     instances never change once made, nor anything they reference: a value of exactly such a
 *     class, read and not set again, is not encoded again at save to look for changes made in place
 *     (as the annotation io.lazysession.serializer.Immutable says; records and List.of of immutable
 *     values need neither, docs/user-guide.md). A listed class that does change loses those
 *     changes. Empty by default.
 * @param onDecodeFailure What happens when an attribute cannot be decoded: drop-attribute,
 *     invalidate-session or fail.
 * @param nearCache This node's near cache of sessions.
 * @param touchInterval How stale the stored last-access time may get before a read-only request
 *     writes it. Shorter than the session timeout, and capped at a tenth of a session's own
 *     timeout. Default: 1% of each session's timeout, at most 60s.
 * @param expiryGrace How long Redis keeps a session's hash after the session expired. With expiry
 *     events in Redis format 2, keep it above a minute plus two cleanup intervals (a WARN at startup
 *     says when it is not): a session whose hash Redis drops before a sweep takes it up gets no
 *     SessionExpiredEvent.
 * @param cleanupInterval How often each node sweeps for expired sessions (publishing expiry
 *     events); 0 turns the sweep off on that node. Keep it on for at least one node of a namespace,
 *     or set expiry-events=false: else the expiry schedule keeps the ids of expired sessions
 *     forever.
 * @param expiryEvents Whether sessions that expire are reported (SessionExpiredEvent, one per
 *     session across all nodes). false keeps no expiry schedule in Redis (less memory per session,
 *     no command to schedule a new session) and runs no sweep, as Spring Session Data Redis's
 *     default repository; deletes the application makes are still reported.
 * @param durability Replicas that must acknowledge each save.
 * @param maxValueBytes The largest encoded attribute value written or read; a bigger value fails
 *     its save with an error naming the attribute. Default: 16MB.
 * @param pack Small attributes stored together in one hash field, compressed as one unit.
 * @param migrateFrom Take over sessions stored by another store on their first request:
 *     spring-session-data-redis (Spring Session Data Redis 4.x, both repositories). Off by default.
 * @param migrateFromNamespace The key prefix of the sessions to take over. Default:
 *     spring.session.data.redis.namespace when set, else spring:session.
 * @param allowListMode enforce: classes outside the allow-list are refused. audit: they are
 *     stored and decoded, and each is logged once with the property line that allows it (for
 *     adopting the list; see docs/compatibility.md).
 * @param requireSerializable Store only values Java serialization can store, as Spring Session Data
 *     Redis and distributable Servlet containers do; false lets Kryo store other values too.
 * @param allowOrganizationPackages Allow the organisation prefix of each application package
 *     (org.acme for org.acme.shop), so that shared libraries' classes decode; false allows the
 *     application packages only.
 * @param requireRedisAtStartup Whether the application refuses to start when Redis cannot be
 *     reached. false: it starts (health DOWN), answers 503 with Retry-After to requests that need a
 *     session, and connects by itself once Redis is reachable. Redis refusing the connection (wrong
 *     password, ACL) fails startup either way.
 * @param encryption Protection of what is stored in Redis; off unless keys are set.
 * @param absoluteTimeout How long after its creation a session is over, however active (OWASP's
 *     absolute timeout), for every node at once; whole seconds. Off by default.
 * @param anonymousTimeout The idle timeout of a session without a principal (visitors and bots that
 *     never sign in); the save that sets a principal gives it the session timeout. Shorter than the
 *     session timeout; whole seconds. Off by default (the session timeout applies).
 * @param idRenewalInterval How long a signed-in session keeps its id: its first request after
 *     that gets a new one (OWASP's renewal timeout); whole seconds. Off by default.
 * @param idRenewalGrace How long the previous id still reaches the session after a renewal (for
 *     requests in flight); shorter than the interval.
 * @param sessionBudget Limits on what one session takes in Redis.
 * @param maxSessionsPerPrincipal At most this many live sessions per principal name, decided
 *     atomically in Redis for every node. Off by default.
 * @param maxSessionsAction What a sign-in beyond max-sessions-per-principal does: evict-oldest (the
 *     principal's session that signed in first ends) or refuse-new (the sign-in fails).
 */
@ConfigurationProperties(LazySessionProperties.PREFIX)
public record LazySessionProperties(
    @DefaultValue(LazyRedisSessionRepository.DEFAULT_NAMESPACE) String namespace,
    @DefaultValue(DEFAULT_CODEC) String codec,
    @Nullable String compression,
    @Name("compression.level") @DefaultValue("" + Compression.DEFAULT_LEVEL)
        int compressionLevel,
    @Name("compression.min-bytes") @DefaultValue("" + Compression.DEFAULT_MIN_BYTES)
        int compressionMinBytes,
    @Name("compression.algorithm") @Nullable String compressionAlgorithm,
    @Name("compression.dictionary") @DefaultValue @NestedConfigurationProperty
        CompressionDictionary compressionDictionary,
    @DefaultValue List<String> allowedPackages,
    @DefaultValue List<String> immutableTypes,
    @DefaultValue(DEFAULT_ON_DECODE_FAILURE) String onDecodeFailure,
    @DefaultValue NearCache nearCache,
    @DurationUnit(ChronoUnit.SECONDS) @Nullable Duration touchInterval,
    @DurationUnit(ChronoUnit.SECONDS) @DefaultValue(DEFAULT_EXPIRY_GRACE) Duration expiryGrace,
    @DurationUnit(ChronoUnit.SECONDS) @DefaultValue(DEFAULT_CLEANUP_INTERVAL)
        Duration cleanupInterval,
    @DefaultValue("true") boolean expiryEvents,
    @DefaultValue Durability durability,
    @Nullable DataSize maxValueBytes,
    @DefaultValue Pack pack,
    @Nullable String migrateFrom,
    @Nullable String migrateFromNamespace,
    @DefaultValue("enforce") String allowListMode,
    @DefaultValue("true") boolean requireSerializable,
    @DefaultValue("true") boolean allowOrganizationPackages,
    @DefaultValue("false") boolean requireRedisAtStartup,
    @DefaultValue Encryption encryption,
    @DurationUnit(ChronoUnit.SECONDS) @Nullable Duration absoluteTimeout,
    @DurationUnit(ChronoUnit.SECONDS) @Nullable Duration anonymousTimeout,
    @DurationUnit(ChronoUnit.SECONDS) @Nullable Duration idRenewalInterval,
    @DurationUnit(ChronoUnit.SECONDS) @DefaultValue("10s") Duration idRenewalGrace,
    @DefaultValue Budget sessionBudget, @Nullable Integer maxSessionsPerPrincipal,
    @DefaultValue("evict-oldest") String maxSessionsAction) {

  public static final String PREFIX = "lazysession";
  static final String DEFAULT_CODEC = "kryo";
  static final String DEFAULT_COMPRESSION = "zstd";
  static final String DEFAULT_ON_DECODE_FAILURE = "drop-attribute";
  static final String DEFAULT_EXPIRY_GRACE = "5m";
  static final String DEFAULT_CLEANUP_INTERVAL = "10s";
  static final String MIGRATE_FROM_SSDR = "spring-session-data-redis";

  public LazySessionProperties {
    allowedPackages = List.copyOf(allowedPackages);
    immutableTypes = PropertyChecks.classNames("immutable-types", immutableTypes);
    // Each value is parsed here so that a wrong one fails at startup as a failure analysis
    // (LazySessionConfigurationException) naming the property, the value and the fix.
    compression = PropertyChecks.compression(compression, compressionAlgorithm);
    compressionAlgorithm = null;
    PropertyChecks.codec(codec);
    PropertyChecks.onDecodeFailure(onDecodeFailure);
    PropertyChecks.between("compression.level", compressionLevel, Compression.MIN_LEVEL,
        Compression.MAX_LEVEL, "between 1 (fastest) and 22 (smallest); "
            + Compression.DEFAULT_LEVEL + " is the default");
    PropertyChecks.between("compression.min-bytes", compressionMinBytes, 0, Integer.MAX_VALUE,
        "to 0 or more (0 compresses every value); " + Compression.DEFAULT_MIN_BYTES
            + " is the default");
    PropertyChecks.nonNegative("expiry-grace", expiryGrace, DEFAULT_EXPIRY_GRACE + " (the default)");
    PropertyChecks.nonNegative("cleanup-interval", cleanupInterval,
        DEFAULT_CLEANUP_INTERVAL + " (the default); 0 turns the sweep off on this node");
    PropertyChecks.allowListMode(allowListMode);
    if (touchInterval != null) {
      PropertyChecks.nonNegative("touch-interval", touchInterval,
          "30s, or remove it for the default (1% of the session timeout, at most 60s)");
    }
    migrateFrom = PropertyChecks.migrateFrom(migrateFrom, MIGRATE_FROM_SSDR);
    if (migrateFromNamespace != null && migrateFromNamespace.isBlank()) {
      migrateFromNamespace = null;
    }
    if (maxValueBytes != null) {
      PropertyChecks.maxValueBytes(maxValueBytes);
    }
    PropertyChecks.wholeSecondsIfSet("absolute-timeout", absoluteTimeout, "8h");
    PropertyChecks.wholeSecondsIfSet("anonymous-timeout", anonymousTimeout, "10m");
    PropertyChecks.idRenewal(idRenewalInterval, idRenewalGrace);
    PropertyChecks.sessionLimit(maxSessionsPerPrincipal, maxSessionsAction);
  }

  /**
   * The near cache, {@code lazysession.near-cache.*}.
   *
   * @param maxBytes Heap for this node's near cache of sessions; 0 turns it off.
   * @param mode validate: every near-cache hit is confirmed by Redis in one call. track: a hit
   *     costs no call, copies being kept fresh by Redis's invalidations (CLIENT TRACKING, one more
   *     connection per node); standalone and Sentinel, Redis 6.2+ over RESP3.
   * @param maxStaleness With mode track: a write acknowledged to its writer longer ago than this is
   *     always seen by a read on any node; also how long a lost tracking connection may go unnoticed.
   */
  public record NearCache(@DefaultValue("64MB") DataSize maxBytes,
      @DefaultValue("validate") NearCacheMode mode,
      @DurationUnit(ChronoUnit.SECONDS) @DefaultValue("500ms") Duration maxStaleness) {
    public NearCache {
      if (maxBytes.isNegative()) {
        throw PropertyChecks.invalid("near-cache.max-bytes", maxBytes, "must be 0 or more",
            "Set it to 0 (no near cache) or a size such as 64MB (the default).");
      }
      PropertyChecks.nearCacheBelowHeap(maxBytes);
      PropertyChecks.positive("near-cache.max-staleness", maxStaleness, "500ms (the default)");
    }

    /** What {@code Builder.nearCacheTracking} is given: the bound in mode track, else null. */
    @Nullable Duration tracking() {
      return mode == NearCacheMode.TRACK ? maxStaleness : null;
    }
  }

  /** How near-cache hits are confirmed ({@code lazysession.near-cache.mode}). */
  public enum NearCacheMode {
    /** Every hit is confirmed by Redis in one call (the default). */
    VALIDATE,
    /** A hit costs no call while Redis's invalidations and the staleness lease vouch for it. */
    TRACK
  }

  /**
   * The attribute pack, {@code lazysession.pack.*}.
   *
   * @param maxBytes Attributes that encode to at most this many bytes are stored together in one
   *     hash field, compressed as one unit (with the zstd dictionary when one is configured);
   *     larger ones in fields of their own. 0 stores every attribute in its own field.
   */
  public record Pack(@DefaultValue("" + AttributeSerializer.DEFAULT_PACK_MAX_BYTES + "B")
      DataSize maxBytes) {
    public Pack {
      if (maxBytes.isNegative() || maxBytes.toBytes() > 65536) {
        throw PropertyChecks.invalid("pack.max-bytes", maxBytes, "must be between 0 and 64KB",
            "Set it between 0 (every attribute in a field of its own) and 64KB; 1KB is the "
                + "default.");
      }
    }
  }

  /**
   * Replicated saves, {@code lazysession.durability.*}.
   *
   * @param replicas Replicas that must acknowledge each save and each deleteById, a sign-out (Redis WAIT); 0 turns it off.
   * @param timeout How long a save waits for them; shorter than spring.data.redis.timeout.
   */
  public record Durability(
      @DefaultValue("0") int replicas,
      @DurationUnit(ChronoUnit.SECONDS) @DefaultValue("1s") Duration timeout) {
    public Durability {
      if (replicas < 0) {
        throw PropertyChecks.invalid("durability.replicas", replicas, "must be 0 or more",
            "Set it to 0 (saves wait for no replica, the default) or the number of replicas that "
                + "must acknowledge each save.");
      }
      PropertyChecks.positive("durability.timeout", timeout,
          "1s (the default), shorter than spring.data.redis.timeout");
    }
  }

  /**
   * Protection of what is stored, {@code lazysession.encryption.*}; docs/security.md. Its {@code
   * toString} never shows the keys.
   *
   * @param keys Comma-separated keyId:base64 entries of 32 random bytes each (make one with openssl
   *     rand -base64 32); the first writes, every one reads. Setting it turns protection on: every
   *     attribute value, the attribute pack and the principal name are sealed with AES-256-GCM,
   *     bound to the session and the field, and checked before decoding. A bean of type
   *     io.lazysession.redis.EncryptionKeySource may give the keys instead. Off by default.
   * @param acceptUnprotected With keys: whether values stored without protection (before it was
   *     turned on, or by a node without keys) are read. Off by default: only key holders can write
   *     what is decoded. Set it to true only while turning protection on or off in a running
   *     cluster, until the repository's reencrypt() reports nothing remaining.
   * @param writeUnprotected With keys: write values without protection while reading protected
   *     ones. The first step of turning protection on in a running cluster and the last of turning
   *     it off, without signing anybody out.
   */
  public record Encryption(@Nullable String keys,
      @DefaultValue("" + SessionEncryption.DEFAULT_ACCEPT_UNPROTECTED) boolean acceptUnprotected,
      @DefaultValue("" + SessionEncryption.DEFAULT_WRITE_UNPROTECTED) boolean writeUnprotected) {
    public Encryption {
      if (keys != null && keys.isBlank()) {
        keys = null;
      }
      PropertyChecks.encryption(keys, acceptUnprotected, writeUnprotected);
    }

    /**
     * The repository's setting from {@link #keys} or else {@code source}'s keys; null (protection
     * off) when there are none.
     *
     * @throws IllegalArgumentException when both give keys
     */
    public @Nullable SessionEncryption settings(@Nullable EncryptionKeySource source) {
      if (keys != null && source != null) {
        throw new IllegalArgumentException(PREFIX + ".encryption.keys is set and an "
            + "EncryptionKeySource bean is defined: keep one of them");
      }
      List<EncryptionKey> parsed = keys != null ? EncryptionKey.parseList(keys)
          : source != null ? source.keys() : null;
      return parsed == null ? null : SessionEncryption.builder().keys(parsed)
          .acceptUnprotected(acceptUnprotected).writeUnprotected(writeUnprotected).build();
    }

    @Override
    public String toString() {
      return "Encryption[keys=" + (keys == null ? "none" : "(set)") + ", acceptUnprotected="
          + acceptUnprotected + ", writeUnprotected=" + writeUnprotected + "]";
    }
  }

  /**
   * Limits on one session's stored size (key, field names and values), {@code
   * lazysession.session-budget.*}. None by default.
   *
   * @param warnBytes A save that takes a session's stored size above this is logged, naming the
   *     largest attributes; once per attribute name. Off by default.
   * @param maxBytes A save that takes a session's stored size above this is refused with an error
   *     naming the attribute that crossed it; nothing of it is written. Off by default.
   */
  public record Budget(@Nullable DataSize warnBytes, @Nullable DataSize maxBytes) {
    public Budget {
      PropertyChecks.budget(warnBytes, maxBytes);
    }

    /** What {@code Builder.sessionBudget} is given. */
    SessionBudget toBudget() {
      return new SessionBudget(warnBytes == null ? null : warnBytes.toBytes(),
          maxBytes == null ? null : maxBytes.toBytes());
    }
  }

  /** Binds {@code lazysession.*}; absent values take their defaults. */
  public static LazySessionProperties bind(Binder binder) {
    return binder.bindOrCreate(PREFIX, Bindable.of(LazySessionProperties.class));
  }

  /** Binds {@code lazysession.*} from the environment. */
  public static LazySessionProperties bind(Environment environment) {
    return bind(Binder.get(environment));
  }

  /** Binds {@code lazysession.*} from one property source (the attributes of an annotation). */
  static LazySessionProperties bind(ConfigurationPropertySource source) {
    return bind(new Binder(source));
  }

  /** The codec written. */
  public CodecKind codecKind() {
    return CodecKind.fromProperty(codec);
  }

  /** The decode failure policy. */
  public DecodeFailurePolicy decodeFailurePolicy() {
    return DecodeFailurePolicy.fromProperty(onDecodeFailure);
  }

  /** The compression these settings describe. */
  public Compression compressionSettings() {
    if (!PropertyChecks.compressionEnabled(compression)) {
      return Compression.none();
    }
    return Compression.zstd(compressionLevel, compressionMinBytes);
  }

  /**
   * The serializer these settings describe.
   *
   * @param defaultPackages packages allowed on top of {@code allowed-packages} (the application's);
   *     with {@code allow-organization-packages}, their organisation prefixes are allowed
   *     ({@link ClassAllowList#organizationPackage})
   */
  public AttributeSerializer serializer(Collection<String> defaultPackages,
      @Nullable ClassLoader classLoader) {
    ClassAllowList allowList = ClassAllowList.builder()
        .allowPackages(applicationPackages(defaultPackages))
        .allowPackages(allowedPackages)
        .mode(ClassAllowList.Mode.fromProperty(allowListMode))
        .build();
    AttributeSerializer.Builder builder = AttributeSerializer.builder()
        .codec(codecKind())
        .compression(compressionSettings())
        .allowList(allowList)
        .packMaxBytes((int) pack.maxBytes().toBytes())
        .requireSerializable(requireSerializable)
        .immutableTypes(immutableTypes);
    if (maxValueBytes != null) {
      builder.maxPayloadBytes((int) maxValueBytes.toBytes());
    }
    if (classLoader != null) {
      builder.classLoader(classLoader);
    }
    return builder.build();
  }

  /** The packages allowed for the application's {@code packages}: see {@link #serializer}. */
  List<String> applicationPackages(Collection<String> packages) {
    return packages.stream().map(p -> allowOrganizationPackages
        ? ClassAllowList.organizationPackage(p) : p).distinct().toList();
  }

  /**
   * Fails naming both properties when durability is on and its timeout is not shorter than the
   * command timeout (the WAIT would time out as a command before it could answer).
   */
  void checkDurabilityTimeout(Duration commandTimeout, String commandTimeoutName) {
    if (durability.replicas() > 0 && durability.timeout().compareTo(commandTimeout) >= 0) {
      throw PropertyChecks.invalid("durability.timeout", durability.timeout(),
          "must be shorter than " + commandTimeoutName + " (" + PropertyChecks.shown(commandTimeout)
              + "), or the WAIT after each save times out as a command before it can answer",
          "Set " + PREFIX + ".durability.timeout below " + PropertyChecks.shown(commandTimeout)
              + " (e.g. half of it), or raise " + commandTimeoutName + ".");
    }
  }

  /**
   * Fails naming both properties when {@code lazysession.touch-interval} is set and not shorter than
   * the session timeout (read-only requests would never keep a session alive).
   */
  void checkTouchInterval(Duration sessionTimeout, String sessionTimeoutName) {
    if (touchInterval != null && !sessionTimeout.isNegative()
        && touchInterval.compareTo(sessionTimeout) >= 0) {
      throw PropertyChecks.invalid("touch-interval", touchInterval,
          "must be shorter than the session timeout (" + sessionTimeoutName + ", "
              + PropertyChecks.shown(sessionTimeout) + "), or sessions read without being "
              + "changed expire while in use",
          "Set " + PREFIX + ".touch-interval well below " + PropertyChecks.shown(sessionTimeout)
              + " (e.g. 30s), raise the session timeout, or remove " + PREFIX
              + ".touch-interval for the default (1% of the timeout, at most 60s).");
    }
  }
}
