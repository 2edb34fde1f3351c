package io.lazysession.serializer.compress;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What one small frame costs to compress and decompress (issue 39, item 2): without a dictionary,
 * with the dictionary's digested tables reused ({@link ZstdCompressor}: per-thread contexts and the
 * {@link ZstdDictionary}'s cached CDict / DDict, which {@code loadDict} only references), and with
 * the dictionary's raw bytes loaded into the context for every frame (the tables built per frame).
 * A harness that prints a table, run on demand: {@code -Dtest=DictionaryContextCostBench}; never an
 * assertion on time.
 */
class DictionaryContextCostBench {
  private static final int LEVEL = 3;
  private static final int ROUNDS = 5;
  private static final int PER_ROUND = 20_000;

  @Test
  void printCostPerFrame() {
    AttributeSerializer raw = AttributeSerializer.builder().compression(Compression.none())
        .allowList(ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE).build())
        .build();
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      Map<String, Object> session = i % 3 == 0 ? ReferenceSession.small() : i % 3 == 1
          ? ReferenceSession.create() : ReferenceSession.large();
      session.put("csrf", UUID.randomUUID().toString());
      session.put("visit", "visit-" + i + "-" + UUID.randomUUID());
      samples.addAll(raw.dictionarySamples(session));
    }
    ZstdDictionary dictionary = ZstdDictionary.train(samples, 16 * 1024);
    Map<String, Object> reference = ReferenceSession.create();
    reference.put("csrf", UUID.randomUUID().toString());
    byte[] pack = raw.dictionarySamples(reference).get(0); // the pack's body, as the store compresses it
    byte[] dictBytes = dictionary.bytes();

    byte[] plainFrame = ZstdCompressor.compress(pack, 0, pack.length, LEVEL, null);
    byte[] dictFrame = ZstdCompressor.compress(pack, 0, pack.length, LEVEL, dictionary);
    ZstdCompressCtx cctx = new ZstdCompressCtx();
    ZstdDecompressCtx dctx = new ZstdDecompressCtx();
    byte[] out = new byte[(int) Zstd.compressBound(pack.length)];
    byte[] back = new byte[pack.length];

    System.out.printf("%nsmall pack: %d bytes; frame %d bytes without dictionary, %d with a %d-byte "
        + "dictionary; %s%n", pack.length, plainFrame.length, dictFrame.length, dictBytes.length,
        Runtime.version());
    System.out.printf("%-58s %12s %12s%n", "variant (median of " + ROUNDS + " x " + PER_ROUND + ")",
        "compress ns", "decompress ns");
    row("no dictionary (per-thread contexts)",
        () -> ZstdCompressor.compress(pack, 0, pack.length, LEVEL, null),
        () -> ZstdCompressor.decompress(plainFrame, 0, plainFrame.length, pack.length, null));
    row("dictionary, digested tables reused (ZstdCompressor)",
        () -> ZstdCompressor.compress(pack, 0, pack.length, LEVEL, dictionary),
        () -> ZstdCompressor.decompress(dictFrame, 0, dictFrame.length, pack.length, dictionary));
    row("dictionary, raw bytes loaded per frame (tables built each time)", () -> {
      cctx.reset();
      cctx.setMagicless(true).setContentSize(false).setDictID(false).setChecksum(false);
      cctx.setLevel(LEVEL);
      cctx.loadDict(dictBytes);
      return cctx.compressByteArray(out, 0, out.length, pack, 0, pack.length);
    }, () -> {
      dctx.reset();
      dctx.setMagicless(true);
      dctx.loadDict(dictBytes);
      return dctx.decompressByteArray(back, 0, back.length, dictFrame, 0, dictFrame.length);
    });
    if (!Arrays.equals(ZstdCompressor.decompress(dictFrame, 0, dictFrame.length, pack.length,
        dictionary), pack)) {
      throw new IllegalStateException("round trip failed");
    }
  }

  private static void row(String name, java.util.function.Supplier<Object> compress,
      java.util.function.Supplier<Object> decompress) {
    System.out.printf("%-58s %12d %12d%n", name, median(compress), median(decompress));
  }

  private static long median(java.util.function.Supplier<Object> operation) {
    long[] rounds = new long[ROUNDS];
    Object sink = null;
    for (int i = 0; i < PER_ROUND; i++) { // warm-up
      sink = operation.get();
    }
    for (int r = 0; r < ROUNDS; r++) {
      long start = System.nanoTime();
      for (int i = 0; i < PER_ROUND; i++) {
        sink = operation.get();
      }
      rounds[r] = (System.nanoTime() - start) / PER_ROUND;
    }
    if (sink == null) {
      throw new IllegalStateException();
    }
    Arrays.sort(rounds);
    return rounds[ROUNDS / 2];
  }
}
