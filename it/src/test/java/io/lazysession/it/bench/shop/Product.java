package io.lazysession.it.bench.shop;

import java.io.Serial;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A product as a catalogue page holds it (the bulk of the large session). Immutable. */
public final class Product implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final long id;
  private final String sku;
  private final String name;
  private final String category;
  private final String description;
  private final BigDecimal price;
  private final ArrayList<String> tags;
  private final int stock;

  public Product(long id, String sku, String name, String category, String description,
      BigDecimal price, List<String> tags, int stock) {
    this.id = id;
    this.sku = sku;
    this.name = name;
    this.category = category;
    this.description = description;
    this.price = price;
    this.tags = new ArrayList<>(tags);
    this.stock = stock;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Product other && id == other.id && stock == other.stock
        && sku.equals(other.sku) && name.equals(other.name) && category.equals(other.category)
        && description.equals(other.description) && price.equals(other.price)
        && tags.equals(other.tags);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, sku);
  }
}
