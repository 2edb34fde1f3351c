package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.session.SessionIdGenerator;

/**
 * What a {@link LazySession} needs from the repository that made it: how to encode values, make new
 * ids, tell the time, and what to do when a stored value cannot be decoded. Implementations are
 * thread-safe (one is shared by every session of a repository).
 */
interface SessionContext {
  AttributeSerializer serializer();

  /** How stored values are sealed and opened ({@link ValueProtection#NONE} without keys). */
  ValueProtection protection();

  String newSessionId();

  Instant now();

  /** Applies the decode failure policy to an attribute of {@code session}. */
  void decodeFailed(LazySession session, String attributeName, SerializationException failure);

  /** After the application changed {@code session}: saves it at once in flush mode IMMEDIATE. */
  void changed(LazySession session);

  /** Whether {@link #changed} saves (flush mode IMMEDIATE). */
  boolean flushesImmediately();

  /** The absolute and anonymous timeouts; none unless configured. */
  default SessionPolicies policies() {
    return SessionPolicies.NONE;
  }

  /** What a context does when a stored attribute cannot be decoded ({@link #decodeFailed}). */
  @FunctionalInterface
  interface DecodeFailures {
    void decodeFailed(LazySession session, String attributeName, SerializationException failure);
  }

  /** A context without value protection nor session policies. */
  static SessionContext of(AttributeSerializer serializer, SessionIdGenerator ids, Clock clock,
      DecodeFailures failures, @Nullable Consumer<LazySession> flush) {
    return of(serializer, ValueProtection.NONE, ids, clock, failures, flush, SessionPolicies.NONE);
  }

  /** A context without value protection. */
  static SessionContext of(AttributeSerializer serializer, SessionIdGenerator ids, Clock clock,
      DecodeFailures failures, @Nullable Consumer<LazySession> flush,
      SessionPolicies policies) {
    return of(serializer, ValueProtection.NONE, ids, clock, failures, flush, policies);
  }

  /** A context without session policies. */
  static SessionContext of(AttributeSerializer serializer, ValueProtection protection,
      SessionIdGenerator ids, Clock clock, DecodeFailures failures,
      @Nullable Consumer<LazySession> flush) {
    return of(serializer, protection, ids, clock, failures, flush, SessionPolicies.NONE);
  }

  /**
   * @param protection how values are sealed and opened
   * @param policies the absolute and anonymous timeouts
   * @param flush what saves a session when the application changes it (flush mode IMMEDIATE); null
   *     when sessions are saved at the end of the request only
   */
  static SessionContext of(AttributeSerializer serializer, ValueProtection protection,
      SessionIdGenerator ids, Clock clock, DecodeFailures failures,
      @Nullable Consumer<LazySession> flush, SessionPolicies policies) {
    return of(() -> serializer, protection, ids, clock, failures, flush, policies);
  }

  /**
   * As above, with the serializer {@code serializers} gives at each call: the one a save writes
   * with may change while the node runs ({@link SharedDictionary#serializer}).
   */
  static SessionContext of(java.util.function.Supplier<AttributeSerializer> serializers,
      ValueProtection protection, SessionIdGenerator ids, Clock clock, DecodeFailures failures,
      @Nullable Consumer<LazySession> flush, SessionPolicies policies) {
    return new SessionContext() {
      @Override
      public SessionPolicies policies() {
        return policies;
      }

      @Override
      public AttributeSerializer serializer() {
        return serializers.get();
      }

      @Override
      public ValueProtection protection() {
        return protection;
      }

      @Override
      public String newSessionId() {
        return ids.generate();
      }

      @Override
      public Instant now() {
        return clock.instant();
      }

      @Override
      public void decodeFailed(LazySession session, String attributeName,
          SerializationException failure) {
        failures.decodeFailed(session, attributeName, failure);
      }

      @Override
      public boolean flushesImmediately() {
        return flush != null;
      }

      @Override
      public void changed(LazySession session) {
        if (flush != null) {
          flush.accept(session);
        }
      }
    };
  }
}
