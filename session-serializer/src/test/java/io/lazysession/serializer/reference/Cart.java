package io.lazysession.serializer.reference;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** A mutable shopping cart, the attribute most often changed in place. */
public final class Cart implements Serializable {
  private static final long serialVersionUID = 1L;

  private final List<Records.CartItem> items = new ArrayList<>();
  private final Currency currency;
  private @Nullable String couponCode;
  private LocalDateTime updatedAt;

  public Cart(Currency currency, LocalDateTime updatedAt) {
    this.currency = currency;
    this.updatedAt = updatedAt;
  }

  public void add(Records.CartItem item) {
    items.add(item);
    updatedAt = item.addedAt();
  }

  public void applyCoupon(String code) {
    this.couponCode = code;
  }

  public List<Records.CartItem> items() {
    return items;
  }

  public BigDecimal total() {
    BigDecimal total = BigDecimal.ZERO;
    for (Records.CartItem item : items) {
      total = total.add(item.unitPrice().multiply(BigDecimal.valueOf(item.quantity())));
    }
    return total;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cart c && items.equals(c.items) && currency.equals(c.currency)
        && Objects.equals(couponCode, c.couponCode) && updatedAt.equals(c.updatedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(items, currency);
  }
}
