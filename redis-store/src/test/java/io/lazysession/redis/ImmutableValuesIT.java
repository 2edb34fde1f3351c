package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.ShopFixtures.Cart;
import io.lazysession.redis.ShopFixtures.Product;
import io.lazysession.testing.RedisServerExtension;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Values read and not set again are saved when changed in place, unless their class is known
 * immutable: then they are not re-encoded at all, end to end through Redis. {@link Cart} is named
 * immutable here (it is not: that is what shows the check was skipped).
 */
class ImmutableValuesIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder.serializer(
      TestRedis.serializer().toBuilder().immutableTypes(List.of(Cart.class.getName())).build()));

  /** A record over a mutable list: mutable, whatever records are. */
  record Wishlist(String owner, List<String> skus) implements Serializable {}

  /** A record of immutable values. */
  record Coupon(String code, BigDecimal discount, List<String> skus) implements Serializable {}

  private static Cart cart() {
    Cart cart = new Cart();
    cart.add(new Product("PE-1", "Pen", new BigDecimal("2.50")), 1);
    return cart;
  }

  @Test
  void save_recordHoldingAListChangedInPlace_savedForTheOtherNode() {
    LazySession created = LazyRedisSessionRepositoryIT.savedSession(nodes.a(), Map.of("wishlist",
        new Wishlist("ada", new ArrayList<>(List.of("PE-1")))));
    LazySession onB = nodes.b().findById(created.getId());
    onB.<Wishlist>getAttribute("wishlist").skus().add("IN-2"); // in place
    nodes.b().save(onB);

    assertThat(nodes.a().findById(created.getId()).<Wishlist>getAttribute("wishlist").skus())
        .containsExactly("PE-1", "IN-2");
  }

  @Test
  void save_namedImmutableChangedInPlace_notWrittenUntilSetAgain() {
    LazySession created = LazyRedisSessionRepositoryIT.savedSession(nodes.a(),
        Map.of("cart", cart(), "coupon", new Coupon("WINTER", new BigDecimal("0.10"), List.of("PE-1"))));
    LazySession onB = nodes.b().findById(created.getId());
    onB.<Cart>getAttribute("cart").coupon = "CHANGED"; // in place, against the promise
    assertThat(onB.<Coupon>getAttribute("coupon").code()).isEqualTo("WINTER");
    nodes.b().save(onB);

    assertThat(nodes.a().findById(created.getId()).<Cart>getAttribute("cart").coupon).isNull();

    LazySession again = nodes.b().findById(created.getId());
    Cart cart = again.getAttribute("cart");
    cart.coupon = "SET";
    again.setAttribute("cart", cart);
    nodes.b().save(again);

    assertThat(nodes.a().findById(created.getId()).<Cart>getAttribute("cart").coupon).isEqualTo("SET");
    assertThat(nodes.a().findById(created.getId()).<Coupon>getAttribute("coupon"))
        .isEqualTo(new Coupon("WINTER", new BigDecimal("0.10"), List.of("PE-1")));
  }
}
