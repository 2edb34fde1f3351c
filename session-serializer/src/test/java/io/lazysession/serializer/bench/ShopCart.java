package io.lazysession.serializer.bench;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The shape of the cart the store benchmark ({@code it}) reads and changes: plain classes, not
 * records (so Kryo's compatible field serializer, field names and class names in the bytes), an
 * {@code ArrayList} of lines, {@code BigDecimal} prices, an {@code Instant}.
 */
final class ShopCart implements Serializable {
  private final ArrayList<Line> items;
  private final String currency;
  private final @Nullable String couponCode;
  private final Instant updatedAt;

  ShopCart(List<Line> items, String currency, @Nullable String couponCode, Instant updatedAt) {
    this.items = new ArrayList<>(items);
    this.currency = currency;
    this.couponCode = couponCode;
    this.updatedAt = updatedAt;
  }

  /** Four lines, as the benchmark's reference session holds. */
  static ShopCart reference() {
    List<Line> lines = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      lines.add(new Line("SKU-" + (10_000 + 37 * i), "burr grinder deluxe " + i, 1 + i % 3,
          BigDecimal.valueOf(1999 + 250L * i, 2)));
    }
    return new ShopCart(lines, "EUR", null, Instant.parse("2025-06-01T10:15:30Z"));
  }

  /** One line of the cart. */
  static final class Line implements Serializable {
    private final String sku;
    private final String name;
    private final int quantity;
    private final BigDecimal unitPrice;

    Line(String sku, String name, int quantity, BigDecimal unitPrice) {
      this.sku = sku;
      this.name = name;
      this.quantity = quantity;
      this.unitPrice = unitPrice;
    }
  }
}
