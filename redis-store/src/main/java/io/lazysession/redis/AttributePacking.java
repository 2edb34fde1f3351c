package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each attribute of a session hash lives: small ones together in the pack field
 * ({@value StoredPack#FIELD}, session-serializer's pack format), the others in fields of their own.
 * Expands a loaded pack into the name-to-envelope map the session reads, and turns a save's changes
 * into field writes, field deletes and a new pack. Stateless and thread-safe.
 *
 * <p>Design: the session above never knows about the pack; only the save script and this class do.
 * A new pack is always this request's pack changes applied to the pack it loaded, sent with that
 * pack's SHA-1: when another request rewrote the pack meanwhile, the script writes nothing and
 * answers the current pack, onto which {@link #rebase} applies the same changes again, so that
 * concurrent changes of different attributes are all kept, as they are for own fields.
 */
final class AttributePacking {
  private static final Logger log = LoggerFactory.getLogger(AttributePacking.class);
  /**
   * Attempts of one save whose pack other requests keep rewriting before it gives up. Each conflict
   * means another save succeeded, so saves as a whole always progress; one save loses a round to
   * each of n concurrent writers with a chance of about (n-1)/n, so the bound is generous (16 nodes
   * writing one session all at once: a save gives up with a chance of about 1 in 10^7).
   */
  static final int MAX_ATTEMPTS = 256;

  private AttributePacking() {}

  /**
   * This request's change of the pack.
   *
   * @param expected the pack this change was made on, as stored (null: the hash had none); the
   *     script writes only when it still holds exactly these bytes
   * @param sets attributes this request puts into the pack
   * @param removes attributes this request takes out of it (removed, or moved to a field)
   * @param bytes the new pack; empty deletes the field
   * @param spilled attributes of this request that did not fit the pack: written to fields of
   *     their own instead (not among {@code sets})
   * @param after the pack the hash holds once the change is applied
   * @param dictionary the id of the zstd dictionary the new pack was compressed with; 0: none, or
   *     unknown (an unchanged pack, or one sealed under a key this node lacks)
   */
  record PackWrite(byte @Nullable [] expected, Map<String, byte[]> sets, Set<String> removes,
      byte[] bytes, Map<String, byte[]> spilled, StoredPack after, int dictionary) {}

  /** Where a save writes: fields of their own, fields deleted, and the pack (null: untouched). */
  record Placement(Map<String, byte[]> fieldWrites, Collection<String> fieldRemoves,
      @Nullable PackWrite pack) {}

  /** The loaded session with its pack read: pack members join the attributes, own fields win. */
  static StoredSession expand(AttributeSerializer serializer, ValueProtection protection,
      String id, StoredSession stored) {
    if (stored.pack().read()) {
      return stored;
    }
    Expanded expanded =
        expand(serializer, protection, id, stored.attributes(), stored.pack().bytes());
    return new StoredSession(stored.creation(), stored.lastAccess(), stored.maxInactiveSeconds(),
        stored.version(), stored.principal(), stored.unchanged(), expanded.attributes(),
        expanded.pack(), stored.renewed());
  }

  /** Attributes stored in fields of their own and the pack, as one map; the pack as read. */
  record Expanded(Map<String, byte[]> attributes, StoredPack pack) {}

  static Expanded expand(AttributeSerializer serializer, ValueProtection protection, String id,
      Map<String, byte[]> ownFields, byte @Nullable [] packBytes) {
    StoredPack pack = read(serializer, protection, id, packBytes);
    Map<String, byte[]> members = pack.members();
    if (members.isEmpty()) {
      return new Expanded(ownFields, pack);
    }
    // Neither map is ever modified, so the pack's own map serves as is when no field shadows it
    // (the usual case) and there are no own fields to join.
    Set<String> shadowed = null;
    for (String name : ownFields.keySet()) {
      if (members.containsKey(name)) {
        if (shadowed == null) {
          shadowed = new LinkedHashSet<>();
        }
        shadowed.add(name);
      }
    }
    if (shadowed != null) {
      members = new LinkedHashMap<>(members);
      members.keySet().removeAll(shadowed);
      pack = new StoredPack(packBytes, members, null, Set.copyOf(shadowed));
    }
    if (ownFields.isEmpty()) {
      return new Expanded(members, pack);
    }
    Map<String, byte[]> attributes =
        new LinkedHashMap<>((int) ((ownFields.size() + members.size()) / 0.75f) + 1);
    attributes.putAll(ownFields);
    attributes.putAll(members);
    return new Expanded(attributes, pack);
  }

  /**
   * Reads a stored pack; one this node cannot read is kept as its bytes, with the reason. A pack
   * that protection rejects (forged, or unprotected when that is refused) reads as one without
   * entries, which the next write of the pack replaces.
   */
  static StoredPack read(AttributeSerializer serializer, ValueProtection protection, String id,
      byte @Nullable [] bytes) {
    if (bytes == null) {
      return StoredPack.NONE;
    }
    byte[] plain = protection.open(id, StoredPack.FIELD, bytes);
    if (plain == null) {
      return new StoredPack(bytes, Map.of(), null);
    }
    if (ValueProtection.isSealed(plain)) {
      String reason = "it is sealed under key '" + ValueProtection.keyId(plain) + "', which this "
          + "node does not hold (lazysession.encryption.keys)";
      log.warn("session {}: its attribute pack cannot be read on this node, so the attributes in "
          + "it are hidden here and kept in Redis as they are: {}", id, reason);
      return new StoredPack(bytes, Map.of(), reason);
    }
    try {
      return new StoredPack(bytes, serializer.unpack(plain), null);
    } catch (SerializationException e) {
      log.warn("session {}: its attribute pack ({} bytes) cannot be read on this node, so the "
          + "attributes in it are hidden here and kept in Redis as they are: {}", id,
          bytes.length, e.getMessage());
      return new StoredPack(bytes, Map.of(), e.getMessage() == null ? e.toString()
          : e.getMessage(), Set.of(), plain == bytes ? null : plain);
    }
  }

  /**
   * An unreadable pack written as it is by a full write ({@code values}: of the id written), its
   * seal made again for that id when this node could open it ({@link StoredPack#opened}).
   */
  private static PackWrite carried(StoredPack loaded, ValueProtection.SessionValues values) {
    byte[] opened = loaded.opened();
    StoredPack after = opened == null ? loaded : new StoredPack(
        values.seal(StoredPack.FIELD, opened), loaded.entries(), loaded.unreadable(),
        loaded.shadowed(), opened);
    byte[] plain = opened != null ? opened
        : ValueProtection.isSealed(loaded.bytes()) ? null : loaded.bytes();
    return new PackWrite(null, Map.of(), Set.of(), after.bytes(), Map.of(), after,
        StoredPack.dictionaryOf(plain));
  }

  /**
   * Where a save of {@code session} writes {@code writes} (name to envelope) and deletes {@code
   * removes}. With {@code full} (a create), every attribute is written: small ones make the pack,
   * a pack this node cannot read is copied as it is.
   */
  static Placement place(LazySession session, Map<String, byte[]> writes,
      Collection<String> removes, boolean full) {
    AttributeSerializer serializer = session.serializer();
    ValueProtection.SessionValues values = session.protection().of(session.getId());
    StoredPack loaded = session.storedPack();
    if (!loaded.writable()) {
      // Never rewritten: small attributes go to fields of their own meanwhile.
      return new Placement(writes, removes, full ? carried(loaded, values) : null);
    }
    StoredPack from = full ? StoredPack.NONE : loaded;
    Map<String, byte[]> members = from.members();
    Map<String, byte[]> fieldWrites = new LinkedHashMap<>();
    List<String> fieldRemoves = new ArrayList<>();
    Map<String, byte[]> sets = new LinkedHashMap<>();
    Set<String> packRemoves = new LinkedHashSet<>();
    writes.forEach((name, envelope) -> {
      if (serializer.packable(envelope)) {
        sets.put(name, envelope);
        if (!full && !members.containsKey(name)) {
          // Moves from its own field into the pack, or is new: an own field of that name, even one
          // another request wrote meanwhile, would shadow this newer value.
          fieldRemoves.add(name);
        }
      } else {
        fieldWrites.put(name, envelope);
        if (members.containsKey(name)) {
          packRemoves.add(name); // moves out of the pack
        }
      }
    });
    for (String name : removes) {
      // Out of both places: another request may have moved it from one to the other meanwhile (a
      // pack this request did not load holds it), and it would come back from there. The pack is
      // sent with the SHA-1 of the loaded one, so a pack written meanwhile makes a conflict.
      fieldRemoves.add(name);
      packRemoves.add(name);
    }
    if (sets.isEmpty() && packRemoves.isEmpty()) {
      return new Placement(fieldWrites, fieldRemoves, null);
    }
    return placed(fieldWrites, fieldRemoves, write(serializer, values, from, sets, packRemoves));
  }

  /**
   * The same save after a conflict: its pack changes applied to {@code current}, the pack the hash
   * holds now. When this node cannot read that one, the attributes this save put into the pack go
   * to fields of their own, and those it took out stay there (logged).
   */
  static Placement rebase(AttributeSerializer serializer, ValueProtection protection, String id,
      Placement placement, byte @Nullable [] current) {
    PackWrite pack = placement.pack();
    if (pack == null) {
      return placement;
    }
    StoredPack read = read(serializer, protection, id, current);
    if (read.writable()) {
      // What this save puts into the pack may have been moved to an own field meanwhile (that is
      // what changed the pack): the own field would shadow it.
      List<String> fieldRemoves = new ArrayList<>(placement.fieldRemoves());
      for (String name : pack.sets().keySet()) {
        if (!fieldRemoves.contains(name)) {
          fieldRemoves.add(name);
        }
      }
      return placed(placement.fieldWrites(), fieldRemoves,
          write(serializer, protection.of(id), read, pack.sets(), pack.removes()));
    }
    if (!pack.removes().isEmpty()) {
      log.warn("session {}: attributes {} could not be removed from its attribute pack, which "
          + "another node rewrote in a format this node cannot read", id, pack.removes());
    }
    Map<String, byte[]> fieldWrites = new LinkedHashMap<>(placement.fieldWrites());
    fieldWrites.putAll(pack.sets());
    List<String> fieldRemoves = new ArrayList<>(placement.fieldRemoves());
    fieldRemoves.removeAll(fieldWrites.keySet());
    return new Placement(fieldWrites, fieldRemoves, null);
  }

  /**
   * Waits a random while, longer as {@code attempt} grows (at most about 26 ms), before a blocking
   * save tries again after its pack was rewritten twice in a row: writers that keep colliding on one
   * session then spread out, so that none of them (the one with the largest pack to rebase, say) is
   * starved until it gives up: a save that keeps losing keeps trying for seconds, not for a fraction
   * of one, while the others finish.
   */
  static void backOff(int attempt) {
    java.util.concurrent.locks.LockSupport.parkNanos(backOffNanos(attempt));
  }

  /**
   * The while {@link #backOff} waits before attempt {@code attempt + 1}: none after the first
   * conflict, then random below 0.1 ms, doubling with each attempt up to 25.6 ms. The reactive
   * writer waits it on a timer instead of a thread.
   */
  static long backOffNanos(int attempt) {
    if (attempt < 2) {
      return 0;
    }
    long bound = 100_000L << Math.min(attempt - 2, 8);
    return java.util.concurrent.ThreadLocalRandom.current().nextLong(bound);
  }

  /** A save whose pack other requests rewrote at every one of its attempts. */
  static SessionStoreException unsettled(String id) {
    return new SessionStoreException("save", id, "other requests rewrote the session's attribute "
        + "pack at each of " + MAX_ATTEMPTS + " attempts; nothing was written", null);
  }

  /** A placement whose pack change spilled attributes that did not fit: fields of their own. */
  private static Placement placed(Map<String, byte[]> fieldWrites, List<String> fieldRemoves,
      PackWrite pack) {
    if (pack.spilled().isEmpty()) {
      return new Placement(fieldWrites, fieldRemoves, pack);
    }
    Map<String, byte[]> writes = new LinkedHashMap<>(fieldWrites);
    writes.putAll(pack.spilled());
    List<String> deletes = new ArrayList<>(fieldRemoves);
    deletes.removeAll(pack.spilled().keySet());
    return new Placement(writes, deletes, pack);
  }

  /**
   * {@code sets} and {@code removes} applied to the pack {@code from}. A change that leaves its
   * entries as they are sends its bytes back unchanged (the write only guards against a pack written
   * meanwhile). Attributes of {@code sets} that would make a pack no node reads back (too many
   * entries, a body over the payload limit) are spilled, last first, to fields of their own.
   */
  private static PackWrite write(AttributeSerializer serializer,
      ValueProtection.SessionValues values, StoredPack from, Map<String, byte[]> sets,
      Set<String> removes) {
    byte[] expected = from.bytes();
    if (sets.isEmpty() && Collections.disjoint(removes, from.members().keySet())
        && Collections.disjoint(removes, from.shadowed())) {
      return new PackWrite(expected, sets, removes, expected == null ? new byte[0] : expected,
          Map.of(), from, 0);
    }
    Map<String, byte[]> entries = new LinkedHashMap<>(from.members());
    entries.keySet().removeAll(removes);
    entries.putAll(sets);
    Map<String, byte[]> spilled = overflow(serializer, entries, sets);
    Map<String, byte[]> packed = sets;
    if (!spilled.isEmpty()) {
      packed = new LinkedHashMap<>(sets);
      packed.keySet().removeAll(spilled.keySet());
    }
    if (entries.isEmpty()) {
      return new PackWrite(expected, packed, removes, new byte[0], spilled, StoredPack.NONE, 0);
    }
    // Sealed here, not when sent: the pack is known by its stored bytes (a save sends their SHA-1).
    byte[] plain = serializer.pack(entries);
    byte[] bytes = values.seal(StoredPack.FIELD, plain);
    return new PackWrite(expected, packed, removes, bytes, spilled,
        new StoredPack(bytes, entries, null), StoredPack.dictionaryOf(plain));
  }

  /**
   * Takes attributes of {@code sets} out of {@code entries}, last first, until they make a pack
   * {@link AttributeSerializer#unpack} reads back; returns those taken out.
   */
  private static Map<String, byte[]> overflow(AttributeSerializer serializer,
      Map<String, byte[]> entries, Map<String, byte[]> sets) {
    long body = AttributeSerializer.PACK_BODY_HEADER_BYTES;
    for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
      body += AttributeSerializer.packEntryBytes(entry.getKey(), entry.getValue());
    }
    int count = entries.size();
    long limit = serializer.maxPayloadBytes();
    if (count <= AttributeSerializer.MAX_PACK_ENTRIES && body <= limit) {
      return Map.of();
    }
    Map<String, byte[]> spilled = new LinkedHashMap<>();
    List<String> names = new ArrayList<>(sets.keySet());
    for (int i = names.size() - 1;
        i >= 0 && (count > AttributeSerializer.MAX_PACK_ENTRIES || body > limit); i--) {
      String name = names.get(i);
      byte[] envelope = entries.remove(name);
      spilled.put(name, envelope);
      count--;
      body -= AttributeSerializer.packEntryBytes(name, envelope);
    }
    return spilled;
  }
}
