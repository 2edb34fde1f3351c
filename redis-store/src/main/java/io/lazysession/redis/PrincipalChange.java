package io.lazysession.redis;

import org.jspecify.annotations.Nullable;

/**
 * What a save does to the principal name stored with a session: nothing, remove it, or set it.
 * Immutable.
 */
sealed interface PrincipalChange {
  /** The principal stays as stored. */
  PrincipalChange UNCHANGED = new Unchanged();
  /** The session no longer has a principal. */
  PrincipalChange REMOVED = new Removed();

  static PrincipalChange setTo(String name) {
    return new SetTo(name);
  }

  /** The principal that is stored after this change is applied to {@code stored}. */
  @Nullable String applyTo(@Nullable String stored);

  /** Keeps the stored principal. */
  record Unchanged() implements PrincipalChange {
    @Override
    public @Nullable String applyTo(@Nullable String stored) {
      return stored;
    }
  }

  /** Removes the stored principal. */
  record Removed() implements PrincipalChange {
    @Override
    public @Nullable String applyTo(@Nullable String stored) {
      return null;
    }
  }

  /** Stores {@code name} as the principal. */
  record SetTo(String name) implements PrincipalChange {
    @Override
    public String applyTo(@Nullable String stored) {
      return name;
    }
  }
}
