package io.lazysession.serializer.reference;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Currency;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The reference session: twelve attributes as a shop keeps them (profile, security context, cart with
 * prices and times, recently viewed products, flags, preferences, a token, a search, a checkout step, a
 * counter, a wishlist and a large rarely-read report). Built deterministically from a seed, so every
 * call returns equal values and equal encodings. The returned maps are new and mutable.
 */
public final class ReferenceSession {
  /** The package to allow: {@code ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE)}. */
  public static final String PACKAGE = "io.lazysession.serializer.reference";

  /** The attribute names, in order. */
  public static final List<String> NAMES = List.of("user", "SPRING_SECURITY_CONTEXT", "cart",
      "recentlyViewed", "flags", "preferences", "csrfToken", "lastSearch", "checkoutStep",
      "visitCount", "wishlist", "report");

  private static final Instant NOW = Instant.parse("2025-06-01T10:15:30Z");
  private static final String[] PRODUCTS = {"Espresso machine", "Burr grinder", "Milk jug",
      "Tamper", "Descaler", "Coffee beans 1kg", "Cup set", "Scale", "Kettle", "Filter papers"};
  private static final String[] REGIONS = {"north", "south", "east", "west", "central"};

  private ReferenceSession() {}

  /** The usual session: about 2 KB with Kryo (report of 25 rows, cart of 4 items). */
  public static Map<String, Object> create() {
    return build(4, 12, 25);
  }

  /** A small session: about 1 KB with Kryo. */
  public static Map<String, Object> small() {
    return build(2, 5, 3);
  }

  /** A large session, about 100 KB with Kryo, nearly all of it the report. */
  public static Map<String, Object> large() {
    return build(10, 30, 2500);
  }

  private static Map<String, Object> build(int cartItems, int viewed, int reportRows) {
    Random random = new Random(20250601);
    Map<String, Object> session = new LinkedHashMap<>();
    UUID userId = new UUID(random.nextLong(), random.nextLong());
    session.put("user", new UserProfile(userId, "jdoe", "jane.doe@example.com", "Jane Doe",
        new Records.Address("12 Rue de la Paix", "Paris", "75002", "FR"), LocalDate.of(1988, 4, 12),
        Locale.FRANCE, NOW.minusSeconds(86_400L * 400), 1250));

    Map<String, String> details = new LinkedHashMap<>();
    details.put("remoteAddress", "203.0.113.42");
    details.put("sessionId", new UUID(random.nextLong(), random.nextLong()).toString());
    session.put("SPRING_SECURITY_CONTEXT", new SecurityContextSnapshot("jdoe",
        List.of(new Records.Authority("ROLE_USER"), new Records.Authority("ROLE_CUSTOMER")), true,
        details, NOW.minusSeconds(1800)));

    Cart cart = new Cart(Currency.getInstance("EUR"), LocalDateTime.ofInstant(NOW, ZoneOffset.UTC));
    for (int i = 0; i < cartItems; i++) {
      cart.add(new Records.CartItem(sku(i), PRODUCTS[i % PRODUCTS.length], 1 + random.nextInt(3),
          price(random), LocalDateTime.ofInstant(NOW.minusSeconds(600L * (cartItems - i)), ZoneOffset.UTC)));
    }
    cart.applyCoupon("SUMMER25");
    session.put("cart", cart);

    List<Records.ProductRef> recentlyViewed = new ArrayList<>();
    for (int i = 0; i < viewed; i++) {
      recentlyViewed.add(new Records.ProductRef(sku(random.nextInt(40)),
          PRODUCTS[random.nextInt(PRODUCTS.length)], NOW.minusSeconds(60L * i)));
    }
    session.put("recentlyViewed", recentlyViewed);

    session.put("flags", EnumSet.of(Enums.FeatureFlag.NEW_CHECKOUT, Enums.FeatureFlag.BETA_SEARCH));

    Map<String, String> preferences = new HashMap<>();
    preferences.put("theme", "dark");
    preferences.put("language", "fr");
    preferences.put("currency", "EUR");
    preferences.put("pageSize", "24");
    preferences.put("newsletter", "weekly");
    session.put("preferences", preferences);

    byte[] token = new byte[32];
    random.nextBytes(token);
    session.put("csrfToken", new Records.CsrfToken("X-CSRF-TOKEN", "_csrf",
        java.util.HexFormat.of().formatHex(token)));

    session.put("lastSearch", new Records.SearchQuery("burr grinder",
        Map.of("brand", List.of("Baratza", "Comandante"), "price", List.of("50-200")), 2,
        NOW.minusSeconds(300)));
    session.put("checkoutStep", Enums.CheckoutStep.SHIPPING);
    session.put("visitCount", 37);

    Set<String> wishlist = new LinkedHashSet<>();
    for (int i = 0; i < 6; i++) {
      wishlist.add(sku(random.nextInt(40)));
    }
    session.put("wishlist", wishlist);

    List<Records.ReportRow> rows = new ArrayList<>(reportRows);
    for (int i = 0; i < reportRows; i++) {
      rows.add(new Records.ReportRow(LocalDate.of(2025, 1, 1).plusDays(i / REGIONS.length),
          REGIONS[i % REGIONS.length], PRODUCTS[random.nextInt(PRODUCTS.length)],
          random.nextInt(500), price(random).multiply(BigDecimal.valueOf(random.nextInt(200)))));
    }
    session.put("report", new SalesReport("Sales by region and day", NOW, rows));
    return session;
  }

  private static String sku(int i) {
    return String.format("SKU-%05d", 10_000 + i * 37);
  }

  private static BigDecimal price(Random random) {
    return BigDecimal.valueOf(199 + random.nextInt(40_000), 2);
  }
}
