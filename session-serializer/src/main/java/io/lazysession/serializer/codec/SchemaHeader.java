package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.io.Output;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The bytes of the field or component names a compatible serializer writes before the first object
 * of its class in a graph: the count, then each name as Kryo writes a string. Computed once per
 * serializer with Kryo's own {@link Output}, so writing them is byte for byte what writing the names
 * one by one was; reading compares the input with them ({@link BoundedInput#skipIfNext}), and only
 * bytes that differ (a class that gained, lost or renamed a field since they were written) are decoded
 * into names and matched the slow way. Immutable.
 */
final class SchemaHeader {
  private SchemaHeader() {}

  /**
   * The header for these names in this order, or null when a name repeats (a field shadowing one of
   * its superclass): the slow path then decides which one a stored name means, as it always did.
   */
  static byte @Nullable [] of(String[] names) {
    Set<String> seen = new HashSet<>();
    Output output = new Output(64, -1);
    output.writeVarInt(names.length, true);
    for (String name : names) {
      if (!seen.add(name)) {
        return null;
      }
      output.writeString(name);
    }
    return output.toBytes();
  }
}
