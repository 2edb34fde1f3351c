package io.lazysession.redis;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The session policies beyond the idle timeout (docs/session-policies.md): an absolute timeout,
 * counted from creation whatever the activity, a shorter idle timeout for sessions without a
 * principal, and the renewal of a signed-in session's id ({@link IdRenewal}). Immutable,
 * thread-safe.
 *
 * <p>Design note: the absolute deadline is never stored. Every node derives it from the stored
 * creation time and its own setting, in Java where the idle timeout is decided on a read
 * ({@link LazySession#isExpired}) and in the scripts that decide it on a write, a delete and a sweep
 * (save.lua, delete.lua, expire.lua), with the caller's clock as for the idle timeout. The nodes of
 * one namespace must therefore share the setting, as they share the default timeout.
 *
 * @param absoluteTimeout how long after its creation a session is over; null: no limit
 * @param anonymousTimeout the idle timeout of new sessions until a principal is set; null: the
 *     default timeout
 * @param defaultTimeout the repository's default idle timeout
 * @param idRenewalInterval how long a signed-in session keeps an id before its first request after
 *     that gets a new one; null: never
 * @param idRenewalGrace how long the previous id still reaches the session after a renewal
 */
record SessionPolicies(@Nullable Duration absoluteTimeout, @Nullable Duration anonymousTimeout,
    Duration defaultTimeout, @Nullable Duration idRenewalInterval, Duration idRenewalGrace) {

  /** The default {@link #idRenewalGrace}. */
  static final Duration DEFAULT_ID_RENEWAL_GRACE = Duration.ofSeconds(10);
  static final SessionPolicies NONE = new SessionPolicies(null, null, Duration.ofMinutes(30));

  SessionPolicies(@Nullable Duration absoluteTimeout, @Nullable Duration anonymousTimeout,
      Duration defaultTimeout) {
    this(absoluteTimeout, anonymousTimeout, defaultTimeout, null, DEFAULT_ID_RENEWAL_GRACE);
  }

  /**
   * Checks the settings, naming the builder option that is wrong.
   *
   * @throws IllegalArgumentException when a timeout is not positive whole seconds, or the renewal
   *     grace is negative or not shorter than the renewal interval
   */
  SessionPolicies {
    check(absoluteTimeout, "absoluteTimeout");
    check(anonymousTimeout, "anonymousTimeout");
    check(idRenewalInterval, "idRenewal interval");
    if (idRenewalGrace == null || idRenewalGrace.isNegative()
        || (idRenewalInterval != null && idRenewalGrace.compareTo(idRenewalInterval) >= 0)) {
      throw new IllegalArgumentException("idRenewal grace must be zero or more and shorter than "
          + "the interval (" + idRenewalInterval + "), was " + idRenewalGrace);
    }
  }

  private static void check(@Nullable Duration timeout, String name) {
    if (timeout != null && (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.getNano() != 0)) {
      throw new IllegalArgumentException(name + " must be whole seconds, at least one second, was "
          + timeout);
    }
  }

  /** The absolute timeout in milliseconds as the scripts read it; 0: none. */
  long absoluteMillis() {
    return absoluteTimeout == null ? 0 : absoluteTimeout.toMillis();
  }

  /** The idle timeout of a new session: the anonymous one when it is shorter than the default. */
  Duration timeoutOfNew() {
    if (anonymousTimeout == null || defaultTimeout.isNegative()
        || anonymousTimeout.compareTo(defaultTimeout) < 0) {
      return anonymousTimeout == null ? defaultTimeout : anonymousTimeout;
    }
    return defaultTimeout;
  }

  /**
   * Whether a session created at {@code creation} is past its absolute deadline at {@code now}.
   */
  boolean pastDeadline(Instant creation, Instant now) {
    return absoluteTimeout != null && !now.isBefore(creation.plus(absoluteTimeout));
  }

  /**
   * When a session expires, epoch milliseconds: its idle due time ({@code idleDue}, or none when it
   * never idles out), or its absolute deadline when that comes first; null when neither applies.
   */
  @Nullable Long due(long creation, @Nullable Long idleDue) {
    if (absoluteTimeout == null) {
      return idleDue;
    }
    long deadline = creation + absoluteTimeout.toMillis();
    return idleDue == null ? deadline : Math.min(idleDue, deadline);
  }

  /**
   * Before a save that sets a principal: a session that still has the anonymous timeout gets the
   * default one, in that same save.
   */
  void beforeSave(LazySession session, PrincipalChange principal) {
    if (principal instanceof PrincipalChange.SetTo && anonymousTimeout != null
        && !timeoutOfNew().equals(defaultTimeout)
        && session.getMaxInactiveInterval().equals(anonymousTimeout)) {
      session.timeoutOnSignIn(defaultTimeout);
    }
  }
}
