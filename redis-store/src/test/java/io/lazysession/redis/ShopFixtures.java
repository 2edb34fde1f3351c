package io.lazysession.redis;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Realistic shop attributes for the store's tests: JDK values, records, mutable beans, enums,
 * collections and a cart whose lines share product instances (shared references).
 */
final class ShopFixtures {
  private ShopFixtures() {}

  enum Tier { BRONZE, SILVER, GOLD }

  record Address(String street, String city, String zip, String country) implements Serializable {}

  record Customer(UUID id, String email, Tier tier, Address billing, Address shipping)
      implements Serializable {}

  record Product(String sku, String name, BigDecimal price) implements Serializable {}

  /** A mutable bean, as carts usually are; lines may share one Product instance. */
  static final class Cart implements Serializable {
    private static final long serialVersionUID = 1L;
    final List<Line> lines = new ArrayList<>();
    String coupon;

    void add(Product product, int quantity) {
      lines.add(new Line(product, quantity));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Cart other && lines.equals(other.lines)
          && Objects.equals(coupon, other.coupon);
    }

    @Override
    public int hashCode() {
      return lines.hashCode();
    }
  }

  static final class Line implements Serializable {
    private static final long serialVersionUID = 1L;
    Product product;
    int quantity;

    Line() {}

    Line(Product product, int quantity) {
      this.product = product;
      this.quantity = quantity;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Line other && product.equals(other.product) && quantity == other.quantity;
    }

    @Override
    public int hashCode() {
      return product.hashCode() * 31 + quantity;
    }
  }

  /** Twelve attributes of every kind a shop keeps in a session. */
  static Map<String, Object> attributes() {
    Address home = new Address("12 Rue des Lilas", "Lyon", "69003", "FR");
    Customer customer = new Customer(UUID.fromString("5f0c8a7e-2b53-4d3e-9b1a-0c2f7d4e8a91"),
        "ada@example.com", Tier.GOLD, home, home);
    Product book = new Product("BK-1", "Notes on the Analytical Engine", new BigDecimal("19.90"));
    Cart cart = new Cart();
    cart.add(book, 1);
    cart.add(new Product("PN-7", "Fountain pen", new BigDecimal("54.00")), 2);
    cart.add(book, 3); // the same Product instance again
    cart.coupon = "WELCOME10";
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("customer", customer);
    attributes.put("cart", cart);
    attributes.put("locale", Locale.FRANCE);
    attributes.put("currency", "EUR");
    attributes.put("visits", 42);
    attributes.put("lastSeen", Instant.parse("2026-11-22T10:15:30Z"));
    attributes.put("birthday", LocalDate.of(1815, 12, 10));
    attributes.put("csrf", UUID.fromString("0b9d2f43-8e0c-4f4e-a0c1-3c1de5a3f0b2"));
    attributes.put("recentlyViewed", new ArrayList<>(List.of("BK-1", "PN-7", "IN-2")));
    attributes.put("flags", new LinkedHashSet<>(List.of("beta", "newsletter")));
    attributes.put("preferences", new LinkedHashMap<>(Map.of("theme", "dark", "pageSize", "24")));
    attributes.put("avatar", new byte[] {1, 2, 3, 5, 8, 13, 21});
    return attributes;
  }
}
