package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

/** The key names of the per-minute expiry schedule (format 2): one Cluster slot with ns:expirations. */
class ExpiryBucketsTest {
  @Test
  void bucket_namedByItsMinute_inTheSlotOfTheSortedSet() {
    ExpiryBuckets buckets = new ExpiryBuckets(new SessionKeys("shop"));

    byte[] bucket = buckets.bucket(ExpiryBuckets.minute(1_700_000_059_999L));

    assertThat(new String(bucket, UTF_8)).isEqualTo("shop:expirations:{shop:expirations}:28333334");
    assertThat(SlotHash.getSlot(bucket)).isEqualTo(SlotHash.getSlot(buckets.zset()));
  }

  @Test
  void bucket_namespaceOfSeveralParts_inTheSlotOfTheSortedSet() {
    ExpiryBuckets buckets = new ExpiryBuckets(new SessionKeys("tenant-1:app.v2"));

    assertThat(SlotHash.getSlot(buckets.bucket(7))).isEqualTo(SlotHash.getSlot(buckets.zset()));
  }

  @Test
  void minute_beforeTheEpoch_roundsDown() {
    assertThat(ExpiryBuckets.minute(-1)).isEqualTo(-1);
    assertThat(ExpiryBuckets.minute(59_999)).isZero();
    assertThat(ExpiryBuckets.minute(60_000)).isEqualTo(1);
  }

  @Test
  void zsetAndInFlight_coversTheMinutesOfAWriteInFlight() {
    ExpiryBuckets buckets = new ExpiryBuckets(new SessionKeys("shop"));
    long now = 10 * ExpiryBuckets.MINUTE + 59_000; // a write in flight is due by 11:59 at the latest

    byte[][] keys = buckets.zsetAndInFlight(now);

    assertThat(keys[0]).isEqualTo(buckets.zset());
    assertThat(keys.length).isEqualTo(4);
    assertThat(keys[1]).isEqualTo(buckets.bucket(10));
    assertThat(keys[3]).isEqualTo(buckets.bucket(12));
    assertThat(ExpiryBuckets.minute(now + ExpirySweeper.IN_FLIGHT.toMillis())).isEqualTo(11);
  }
}
