package io.lazysession.it.bench.shop;

import java.io.Serial;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A shopping cart, the attribute that the benchmark reads and changes. Immutable, and marked so, as
 * docs/user-guide.md asks of an application's immutable classes: a read-only request does not encode
 * it again at save (Spring Session Data Redis never does).
 */
@io.lazysession.serializer.Immutable
public final class Cart implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final ArrayList<CartItem> items;
  private final String currency;
  private final @Nullable String couponCode;
  private final Instant updatedAt;

  public Cart(List<CartItem> items, String currency, @Nullable String couponCode, Instant updatedAt) {
    this.items = new ArrayList<>(items);
    this.currency = currency;
    this.couponCode = couponCode;
    this.updatedAt = updatedAt;
  }

  public List<CartItem> items() {
    return List.copyOf(items);
  }

  /** A copy whose first line has one more unit (wrapping back to 1 after 9), as "add to cart" does. */
  public Cart withOneMore(Instant now) {
    List<CartItem> changed = new ArrayList<>(items);
    CartItem first = changed.get(0);
    changed.set(0, first.withQuantity(first.quantity() % 9 + 1));
    return new Cart(changed, currency, couponCode, now);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cart other && items.equals(other.items) && currency.equals(other.currency)
        && Objects.equals(couponCode, other.couponCode) && updatedAt.equals(other.updatedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(items, currency, couponCode, updatedAt);
  }
}
