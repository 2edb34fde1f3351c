package io.lazysession.serializer;

import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.envelope.EnvelopeHeader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The samples {@link AttributeSerializer#dictionarySamples} returns. Stateless. */
final class DictionarySamples {
  private DictionarySamples() {}

  static List<byte[]> of(AttributeSerializer serializer, Map<String, ?> attributes) {
    int packMaxBytes = serializer.packMaxBytes();
    Map<String, byte[]> packed = new LinkedHashMap<>();
    List<byte[]> samples = new ArrayList<>();
    attributes.forEach((name, value) -> {
      byte[] payload = serializer.encodePayload(value);
      if (packMaxBytes > 0 && payload.length <= packMaxBytes) {
        packed.put(name,
            EnvelopeHeader.raw(serializer.codec(), payload.length).wrap(payload, payload.length));
      } else {
        samples.add(payload);
      }
    });
    if (!packed.isEmpty()) {
      byte[] pack = AttributePack.write(packed, Compression.none(), Integer.MAX_VALUE);
      samples.add(0, Arrays.copyOfRange(pack, 2, pack.length)); // the body, without its header
    }
    return samples;
  }
}
