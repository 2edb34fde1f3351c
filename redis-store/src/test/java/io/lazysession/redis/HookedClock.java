package io.lazysession.redis;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that runs a test's action when it is read for the n-th time: a way to act at an exact
 * point inside a repository call (the save script's arguments read the clock just before it is
 * sent). Otherwise tells the time of the clock it wraps. Thread-safe.
 */
final class HookedClock extends Clock {
  private final Clock time;
  private final AtomicInteger readsLeft = new AtomicInteger();
  private final AtomicReference<Runnable> action = new AtomicReference<>();

  HookedClock(Clock time) {
    this.time = time;
  }

  /** Runs {@code hook} once, on the {@code n}-th reading from now on (1: the next). */
  void onRead(int n, Runnable hook) {
    readsLeft.set(n);
    action.set(hook);
  }

  @Override
  public Instant instant() {
    if (readsLeft.get() > 0 && readsLeft.decrementAndGet() == 0) {
      Runnable hook = action.getAndSet(null);
      if (hook != null) {
        hook.run();
      }
    }
    return time.instant();
  }

  @Override
  public ZoneId getZone() {
    return time.getZone();
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("not needed by the tests");
  }
}
