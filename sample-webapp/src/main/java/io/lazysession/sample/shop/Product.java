package io.lazysession.sample.shop;

import java.io.Serializable;
import java.math.BigDecimal;

/** A product of the catalog. */
public record Product(String id, String name, String category, BigDecimal price, String description)
    implements Serializable {}
