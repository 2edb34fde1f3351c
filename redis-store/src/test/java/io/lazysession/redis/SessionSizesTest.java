package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How {@link SessionSizes} splits a pack among its members and counts names. */
class SessionSizesTest {
  @Test
  void shares_unevenWeights_addUpToTheTotalExactlyInProportion() {
    Map<String, byte[]> members = new LinkedHashMap<>();
    members.put("a", new byte[10]);
    members.put("b", new byte[20]);
    members.put("c", new byte[31]);

    long[] shares = SessionSizes.shares(members, 101);

    assertThat(shares[0] + shares[1] + shares[2]).isEqualTo(101);
    long weights = 0;
    for (Map.Entry<String, byte[]> member : members.entrySet()) {
      weights += AttributeSerializer.packEntryBytes(member.getKey(), member.getValue());
    }
    int i = 0;
    for (Map.Entry<String, byte[]> member : members.entrySet()) {
      double exact = 101.0 * AttributeSerializer.packEntryBytes(member.getKey(), member.getValue())
          / weights;
      assertThat((double) shares[i++]).isBetween(Math.floor(exact), Math.ceil(exact));
    }
  }

  @Test
  void shares_noMembers_empty() {
    assertThat(SessionSizes.shares(Map.of(), 50)).isEmpty();
  }

  @Test
  void shares_oneMember_takesItAll() {
    assertThat(SessionSizes.shares(Map.of("only", new byte[3]), 77)).containsExactly(77);
  }

  @Test
  void utf8Length_anyText_isTheLengthOfItsUtf8Bytes() {
    for (String text : new String[] {"", "cart", "größe", "名前", "emoji \uD83D\uDE00 ok"}) {
      assertThat(SessionSizes.utf8Length(text)).as(text).isEqualTo(text.getBytes(UTF_8).length);
    }
  }
}
