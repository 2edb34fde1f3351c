package io.lazysession.redis;

import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.SerializationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the {@link DecodeFailurePolicy} on a session whose attribute could not be decoded:
 * hides or drops the attribute, invalidates the session, or fails the read; logs what it did.
 * Thread-safe (stateless but for the metrics it counts into).
 *
 * <p>Only {@link SerializationException}s reach this class. An {@link Error} thrown while decoding
 * (out of memory, stack overflow) says nothing about the bytes: it propagates to the caller and the
 * attribute stays as it was, its stored bytes untouched.
 */
final class DecodeFailureHandler implements SessionContext.DecodeFailures {
  private static final Logger log = LoggerFactory.getLogger(DecodeFailureHandler.class);

  /** Refused classes this repository already reported; bounded so that it cannot grow without end. */
  private final java.util.Set<String> reported = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private static final int MAX_REPORTED = 1024;

  private final DecodeFailurePolicy policy;
  private final MetricsRecorder metrics;

  DecodeFailureHandler(DecodeFailurePolicy policy, MetricsRecorder metrics) {
    this.policy = policy;
    this.metrics = metrics;
  }

  @Override
  public void decodeFailed(LazySession session, String attributeName,
      SerializationException failure) {
    rethrowError(failure);
    metrics.decodeFailures.increment();
    String what = failure instanceof ClassNotAllowedException notAllowed
        ? "class " + notAllowed.className() + " is not allowed"
        : failure.getClass().getSimpleName() + ": " + failure.getMessage();
    switch (policy) {
      case DROP_ATTRIBUTE -> {
        if (failure instanceof ClassNotAllowedException notAllowed) {
          // Every request of every session holding it would say so: once per class is enough
          // (sessions taken over from Spring Session Data Redis, a class not yet allowed).
          if (reported.size() < MAX_REPORTED && reported.add(notAllowed.className())) {
            log.warn("Hid attribute '{}' of session {} from this request, and hide every attribute "
                + "holding {} likewise (its bytes stay in Redis untouched; logged once per class): "
                + "{}", attributeName, session.getId(), notAllowed.className(), failure.getMessage());
          }
          session.hideAttribute(attributeName);
        } else if (DecodeFailurePolicy.readableElsewhere(failure)) {
          log.warn("Hid attribute '{}' of session {} from this request: {}; its bytes stay in "
              + "Redis untouched (a node that can read them, such as a newer version during a "
              + "rolling deploy, still does)", attributeName, session.getId(), what);
          session.hideAttribute(attributeName);
        } else {
          log.warn("Dropped attribute '{}' of session {} (its stored bytes are corrupt and are "
              + "deleted at the next save): {}", attributeName, session.getId(), what);
          session.removeAttribute(attributeName);
        }
      }
      case INVALIDATE_SESSION -> {
        log.warn("Invalidated session {}: its attribute '{}' cannot be decoded ({})",
            session.getId(), attributeName, what);
        session.invalidate();
      }
      case FAIL -> throw new IllegalStateException("Attribute '" + attributeName + "' of session "
          + session.getId() + " cannot be decoded: " + what, failure);
    }
  }

  /**
   * A codec that wrapped an {@link Error} into its exception must not turn it into a policy
   * decision: the bytes may be perfectly valid, this JVM merely ran out of something.
   */
  private static void rethrowError(SerializationException failure) {
    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof VirtualMachineError error) {
        throw error;
      }
    }
  }
}
