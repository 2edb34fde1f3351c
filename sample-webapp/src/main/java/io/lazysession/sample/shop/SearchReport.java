package io.lazysession.sample.shop;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.List;

/**
 * A large, rarely read attribute: a purchase-history report computed at sign-in and shown on one page
 * only. It is where lazy inflation pays: most requests never decode it.
 */
public record SearchReport(String title, LocalDateTime generatedAt, List<Row> rows)
    implements Serializable {

  /** One order line of the report. */
  public record Row(String orderId, LocalDateTime orderedAt, String productId, String productName,
      int quantity, BigDecimal amount, String status) implements Serializable {}
}
