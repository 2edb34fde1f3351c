package io.lazysession.it.bench.shop;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Realistic shop sessions: the attributes a web shop keeps per visitor, with random ids, amounts and
 * tokens (which do not compress) and text drawn from a small vocabulary (which does, as real product
 * text does). The same seed always gives the same session; different seeds give sessions of the same
 * shape with different contents, which is what a compression dictionary is trained on.
 */
public final class ShopSessions {
  /** The attribute that the read and write workloads touch (present in every size). */
  public static final String CART = "cart";

  private static final String[] WORDS = ("organic cotton shirt slim fit blue white black navy "
      + "linen summer winter jacket waterproof breathable lightweight wool sweater crew neck "
      + "trousers chino stretch denim jeans regular straight leather belt brown buckle sneakers "
      + "running shoes cushioned sole everyday comfort machine washable recycled polyester "
      + "hooded zip pocket classic modern relaxed tailored premium quality soft warm durable "
      + "casual formal office weekend travel outdoor hiking trail socks pack of three").split(" ");
  private static final String[] CATEGORIES = {"men/shirts", "men/trousers", "women/dresses",
      "women/knitwear", "shoes/running", "accessories/belts", "outdoor/jackets", "kids/basics"};
  private static final String[] CITIES = {"Lyon", "Hamburg", "Utrecht", "Porto", "Gdansk",
      "Bologna", "Leeds", "Graz"};
  private static final Locale[] LOCALES = {Locale.FRANCE, Locale.GERMANY, Locale.UK, Locale.ITALY,
      Locale.US};
  private static final String[] FLAGS = {"new-checkout", "one-click", "dark-mode", "reco-v2",
      "free-shipping-banner", "loyalty-points", "size-advisor"};

  private ShopSessions() {}

  /** The attributes of one session of this size, in a stable order. */
  public static Map<String, Object> create(SessionSize size, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Instant now = Instant.parse("2026-03-14T09:26:53Z").plusSeconds(random.nextInt(86_400));
    Map<String, Object> attributes = new LinkedHashMap<>();
    if (size == SessionSize.SMALL) {
      attributes.put(CART, cart(random, now, 1));
      attributes.put("csrfToken", new UUID(random.nextLong(), random.nextLong()).toString());
      attributes.put("lastActivity", now);
      attributes.put("checkoutStep", CheckoutStep.values()[random.nextInt(4)]);
      return attributes;
    }
    attributes.put("user", user(random, now));
    attributes.put(CART, cart(random, now, 4));
    attributes.put("csrfToken", new UUID(random.nextLong(), random.nextLong()).toString());
    attributes.put("lastActivity", now);
    attributes.put("checkoutStep", CheckoutStep.values()[random.nextInt(4)]);
    attributes.put("locale", LOCALES[random.nextInt(LOCALES.length)]);
    List<Long> viewed = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      viewed.add(100_000L + random.nextInt(900_000));
    }
    attributes.put("recentlyViewed", viewed);
    Map<String, String> filters = new LinkedHashMap<>();
    filters.put("category", CATEGORIES[random.nextInt(CATEGORIES.length)]);
    filters.put("size", new String[] {"S", "M", "L", "XL"}[random.nextInt(4)]);
    filters.put("color", word(random));
    filters.put("priceMin", Integer.toString(random.nextInt(50)));
    filters.put("priceMax", Integer.toString(50 + random.nextInt(200)));
    filters.put("sort", "relevance");
    attributes.put("searchFilters", filters);
    attributes.put("shippingAddress", address(random));
    attributes.put("featureFlags", new HashSet<>(Arrays.asList(FLAGS).subList(0,
        2 + random.nextInt(FLAGS.length - 2))));
    attributes.put("wishlistCount", random.nextInt(40));
    attributes.put("flashMessages", new ArrayList<>(List.of("Your cart was saved",
        "Free shipping from 50 EUR")));
    if (size == SessionSize.REFERENCE) {
      return attributes;
    }
    List<Product> page = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      page.add(product(random));
    }
    attributes.put("catalogPage", page);
    List<Order> orders = new ArrayList<>();
    for (int i = 0; i < 75; i++) {
      orders.add(order(random, now.minusSeconds(86_400L * (i + 1))));
    }
    attributes.put("orderHistory", orders);
    return attributes;
  }

  /**
   * A large value of exactly {@code bytes} bytes, such as an export or a draft document kept in a
   * session: product text from the vocabulary with a random number every eighth word (text compresses,
   * the numbers do not). The same seed gives the same bytes.
   */
  public static byte[] document(int bytes, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder text = new StringBuilder(bytes + 64);
    int words = 0;
    while (text.length() < bytes) {
      text.append(++words % 8 == 0 ? Integer.toString(random.nextInt(1_000_000)) : word(random))
          .append(' ');
    }
    return Arrays.copyOf(text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        bytes);
  }

  private static UserProfile user(SplittableRandom random, Instant now) {
    String first = capitalized(word(random));
    String last = capitalized(word(random));
    String username = (first + "." + last).toLowerCase(Locale.ROOT) + random.nextInt(1000);
    return new UserProfile(random.nextLong(1, Long.MAX_VALUE), username, username + "@example.com",
        first + " " + last, List.of("ROLE_USER", "ROLE_CUSTOMER"),
        LOCALES[random.nextInt(LOCALES.length)], now.minusSeconds(random.nextInt(100_000_000)),
        random.nextBoolean());
  }

  private static Cart cart(SplittableRandom random, Instant now, int lines) {
    List<CartItem> items = new ArrayList<>();
    for (int i = 0; i < lines; i++) {
      items.add(item(random));
    }
    return new Cart(items, "EUR", random.nextInt(4) == 0 ? "SPRING" + random.nextInt(100) : null,
        now);
  }

  private static CartItem item(SplittableRandom random) {
    return new CartItem(sku(random), phrase(random, 3), 1 + random.nextInt(3), price(random));
  }

  private static Address address(SplittableRandom random) {
    return new Address(capitalized(word(random)) + " " + capitalized(word(random)),
        (1 + random.nextInt(200)) + " " + capitalized(word(random)) + " Street",
        Integer.toString(10_000 + random.nextInt(89_999)), CITIES[random.nextInt(CITIES.length)],
        "EU");
  }

  private static Product product(SplittableRandom random) {
    List<String> tags = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      tags.add(word(random));
    }
    return new Product(random.nextLong(1, 10_000_000), sku(random), capitalized(phrase(random, 4)),
        CATEGORIES[random.nextInt(CATEGORIES.length)], capitalized(phrase(random, 40)) + ".",
        price(random), tags, random.nextInt(500));
  }

  private static Order order(SplittableRandom random, Instant placedAt) {
    List<CartItem> lines = new ArrayList<>();
    int count = 1 + random.nextInt(4);
    for (int i = 0; i < count; i++) {
      lines.add(item(random));
    }
    return new Order("ORD-" + (1_000_000 + random.nextInt(9_000_000)), placedAt,
        random.nextInt(10) == 0 ? "RETURNED" : "DELIVERED", price(random).multiply(
            BigDecimal.valueOf(count)), lines, address(random));
  }

  private static String sku(SplittableRandom random) {
    return "SKU-" + Integer.toString(random.nextInt(1 << 30), 36).toUpperCase(Locale.ROOT);
  }

  private static BigDecimal price(SplittableRandom random) {
    return BigDecimal.valueOf(499 + random.nextInt(20_000), 2);
  }

  private static String phrase(SplittableRandom random, int words) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        text.append(' ');
      }
      text.append(word(random));
    }
    return text.toString();
  }

  private static String word(SplittableRandom random) {
    return WORDS[random.nextInt(WORDS.length)];
  }

  private static String capitalized(String word) {
    return Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }
}
