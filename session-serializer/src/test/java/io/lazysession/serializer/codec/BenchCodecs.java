package io.lazysession.serializer.codec;

import io.lazysession.serializer.ClassAllowList;

/** Codec variants that exist only to be measured against the real ones. */
public final class BenchCodecs {
  private BenchCodecs() {}

  /** Kryo with plain {@code FieldSerializer} and Kryo's positional {@code RecordSerializer}. */
  public static Codec plainKryo(ClassAllowList allowList) {
    return new KryoCodec(allowList, BenchCodecs.class.getClassLoader(), Codecs.DEFAULT_MAX_PAYLOAD_BYTES,
        false);
  }
}
