package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.LazyValue;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.ValueTooLargeException;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One attribute of a {@link LazySession}: its lazy value, the bytes Redis holds for it, and whether
 * the request set it. Knows which bytes a save must write for it; only {@link #committed} changes
 * what it holds. Not thread-safe, like its session.
 */
final class AttributeEntry {
  /** Makes the lazy value of a loaded attribute when it is first needed. */
  private final @Nullable AttributeSerializer serializer;
  /** Null for a loaded attribute nobody asked for yet: most of a session's attributes. */
  private @Nullable LazyValue value;
  /** The bytes Redis holds for this attribute (as loaded or last written); null if never stored. */
  private byte @Nullable [] stored;
  private boolean set;

  private AttributeEntry(@Nullable AttributeSerializer serializer, @Nullable LazyValue value,
      byte @Nullable [] stored, boolean set) {
    this.serializer = serializer;
    this.value = value;
    this.stored = stored;
    this.set = set;
  }

  /** An attribute loaded from Redis as {@code stored}; its lazy value is made on first use. */
  static AttributeEntry loaded(AttributeSerializer serializer, byte[] stored) {
    return new AttributeEntry(serializer, null, stored, false);
  }

  /** An attribute the application set; {@code stored} is what Redis held for the name before. */
  static AttributeEntry set(LazyValue value, byte @Nullable [] stored) {
    return new AttributeEntry(null, value, stored, true);
  }

  LazyValue value() {
    LazyValue v = value;
    if (v == null) {
      // Only loaded entries lack a value, and they have a serializer and bytes.
      v = Objects.requireNonNull(serializer).lazy(Objects.requireNonNull(stored));
      value = v;
    }
    return v;
  }

  /** Whether its value was decoded (or set): only then can it have changed in place. */
  boolean isInflated() {
    return value != null && value.isInflated();
  }

  /** The bytes Redis holds for it (as loaded or last written); null if never stored. */
  byte @Nullable [] stored() {
    return stored;
  }

  /** Whether the application set it since it was loaded or last saved. */
  boolean isSet() {
    return set;
  }

  /** Whether Redis holds it and the application did not set it since. */
  boolean isLoaded() {
    return stored != null && !set;
  }

  /** The bytes to write when it changed, or null when Redis already holds them. */
  byte @Nullable [] changedBytes() {
    if (set) {
      // Encoded now, once (a value set by the application has no bytes before this).
      return value().originalBytes();
    }
    if (!isInflated()) {
      return null; // never read: never re-encoded
    }
    byte[] now = value().currentBytes();
    return stored != null && Arrays.equals(now, stored) ? null : now;
  }

  /** A value in the configured encoding, and the bytes of that encoding. */
  record Rebased(LazyValue value, byte[] bytes) {}

  /**
   * For a session taken over from another store: this value, loaded, read and not changed, in the
   * configured encoding when that is not the bytes it was read from (the take-over writes it so);
   * null otherwise, or when the configured codec cannot encode it (it keeps its bytes).
   */
  @Nullable Rebased rebased(AttributeSerializer serializer) {
    if (!isLoaded() || !isInflated() || changedBytes() != null) {
      return null;
    }
    try {
      LazyValue rebased = serializer.ofValue(value().get());
      byte[] bytes = rebased.originalBytes();
      return Arrays.equals(bytes, stored) ? null : new Rebased(rebased, bytes);
    } catch (SerializationException e) {
      return null;
    }
  }

  /**
   * Redis now holds {@code rebased}'s bytes for it: from now on the value is compared with them, not
   * with the bytes it was read from.
   */
  void takenOver(Rebased rebased) {
    value = rebased.value();
    stored = rebased.bytes();
    set = false;
  }

  /** The bytes that represent it in a full write (new session, new id). */
  byte[] fullBytes() {
    if (set) {
      return value().originalBytes();
    }
    if (!isInflated() && stored != null) {
      return stored;
    }
    return value().currentBytes();
  }

  /** Redis now holds {@code written} for it. */
  void committed(byte[] written) {
    stored = written;
    set = false;
  }

  /**
   * Runs an entry's encoding; a failure names the attribute and the session {@code id} (a value over
   * the size limit also names the setting: {@link ValueTooLargeException}'s message does).
   */
  static byte @Nullable [] encoded(String id, String name, Supplier<byte @Nullable []> encoding) {
    try {
      return encoding.get();
    } catch (SerializationException e) {
      String message = "attribute '" + name + "' of session " + id + " cannot be stored: "
          + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      if (e instanceof ValueTooLargeException tooLarge) {
        throw new AttributeTooLargeException(message, tooLarge);
      }
      throw new SerializationException(message, e);
    }
  }
}
