package io.lazysession.sample.shop;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.springframework.stereotype.Component;

/** The products on sale, and the report built for a user at sign-in. Thread-safe (immutable). */
@Component
public class Catalog {
  private static final String[][] ITEMS = {
      {"Coffee", "Ethiopia Yirgacheffe beans 1kg", "Colombia Huila beans 1kg", "Espresso blend 500g",
          "Decaf Brazil 500g", "Cold brew pack"},
      {"Kitchen", "Pour-over kettle", "Burr grinder", "Glass carafe", "Ceramic dripper",
          "Digital scale"},
      {"Books", "The Coffee Atlas", "Water for Coffee", "The Blue Bottle Craft",
          "Everything but Espresso", "Coffee Obsession"},
      {"Tea", "Darjeeling first flush", "Sencha Uji", "Assam breakfast", "Oolong Tieguanyin",
          "Rooibos vanilla"},
  };

  private final Map<String, Product> products = new LinkedHashMap<>();

  public Catalog() {
    int n = 0;
    for (String[] category : ITEMS) {
      for (int i = 1; i < category.length; i++) {
        n++;
        String id = "P" + (1000 + n);
        BigDecimal price = BigDecimal.valueOf(450 + (n * 737L) % 6000, 2);
        products.put(id, new Product(id, category[i], category[0], price,
            category[i] + ", selected by our " + category[0].toLowerCase() + " team."));
      }
    }
  }

  public List<Product> all() {
    return List.copyOf(products.values());
  }

  public Optional<Product> find(String id) {
    return Optional.ofNullable(products.get(id));
  }

  /** A purchase history of a few hundred order lines, different for each user. */
  public SearchReport purchaseHistory(String username, Clock clock) {
    Random random = new Random(username.hashCode());
    List<Product> all = all();
    List<SearchReport.Row> rows = new ArrayList<>();
    LocalDateTime now = LocalDateTime.now(clock);
    String[] statuses = {"DELIVERED", "DELIVERED", "DELIVERED", "RETURNED", "SHIPPED"};
    for (int i = 0; i < 400; i++) {
      Product product = all.get(random.nextInt(all.size()));
      int quantity = 1 + random.nextInt(3);
      rows.add(new SearchReport.Row(
          "O-" + Integer.toHexString(0x100000 + random.nextInt(0xEFFFFF)).toUpperCase(),
          now.minusHours(random.nextInt(24 * 365 * 3)).withNano(0),
          product.id(), product.name(), quantity,
          product.price().multiply(BigDecimal.valueOf(quantity)).setScale(2, RoundingMode.HALF_UP),
          statuses[random.nextInt(statuses.length)]));
    }
    return new SearchReport("Purchase history of " + username, now, rows);
  }
}
