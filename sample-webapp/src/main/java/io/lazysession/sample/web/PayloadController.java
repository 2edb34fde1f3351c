package io.lazysession.sample.web;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazySession;
import io.lazysession.redis.SessionSize;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.measure.PayloadMeter;
import io.lazysession.serializer.measure.PayloadReport;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;

/**
 * Shows what the current session costs, from {@link LazyRedisSessionRepository#measure}: per
 * attribute, where it lives (the pack or a field of its own), its bytes as encoded, as an envelope
 * and as stored, what Spring Session Data Redis would store for it, and whether this request
 * inflated it; the session's total and Redis's MEMORY USAGE; as a table and as bars. The codec
 * columns are what the same value would take under each codec and compression (PayloadMeter).
 */
@Controller
class PayloadController {
  private final LazyRedisSessionRepository repository;
  private final PayloadMeter meter;

  PayloadController(LazyRedisSessionRepository repository, AttributeSerializer serializer) {
    this.repository = repository;
    this.meter = PayloadMeter.standard(serializer.allowList(), null);
  }

  @GetMapping("/payload")
  String payload(HttpServletRequest request, HttpSession session, Model model) {
    // What this request has inflated so far: the header of the page reads the user and the cart.
    model.addAttribute("user", session.getAttribute(ShopAttributes.USER));
    model.addAttribute("cart", session.getAttribute(ShopAttributes.CART));
    model.addAttribute("sessionId", session.getId());
    model.addAttribute("csrf", ShopController.csrfToken());
    model.addAttribute("node", "node :" + request.getLocalPort());
    model.addAttribute("choices", meter.choices().stream().map(PayloadMeter.Choice::label).toList());
    model.addAttribute("metrics", asMap(repository.metrics()));
    LazySession current = LazySession.current().orElse(null);
    SessionSize size = current == null ? null : repository.measure(current, true);
    model.addAttribute("size", size);
    if (size == null) {
      return "payload";
    }
    // The values for the codec columns come from a separate copy, so that decoding them does not
    // change what this request inflated.
    LazySession copy = repository.findById(session.getId());
    Map<String, Object> values = new LinkedHashMap<>();
    List<String> undecodable = new ArrayList<>();
    for (SessionSize.AttributeSize attribute : size.attributes()) {
      try {
        Object value = copy == null ? null : copy.getAttribute(attribute.name());
        if (value != null) {
          values.put(attribute.name(), value);
        }
      } catch (SerializationException e) {
        undecodable.add(attribute.name() + ": " + e.getMessage());
      }
    }
    PayloadReport report = meter.measure(values);
    Map<String, List<PayloadReport.Figures>> figures = new LinkedHashMap<>();
    report.attributes().forEach(a -> figures.put(a.name(), a.figures()));
    List<Row> rows = new ArrayList<>();
    for (SessionSize.AttributeSize attribute : size.attributes()) {
      rows.add(new Row(attribute, figures.getOrDefault(attribute.name(), List.of())));
    }
    model.addAttribute("rows", rows);
    model.addAttribute("report", report);
    model.addAttribute("chart", PayloadChart.of(size));
    model.addAttribute("packed", size.attributes().stream()
        .filter(a -> a.place() == SessionSize.Place.PACK).count());
    model.addAttribute("own", size.attributes().stream()
        .filter(a -> a.place() == SessionSize.Place.OWN_FIELD).count());
    model.addAttribute("undecodable", undecodable);
    return "payload";
  }

  /** The components of a metrics record, by name, in declaration order. */
  private static Map<String, Object> asMap(Record metrics) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (RecordComponent component : metrics.getClass().getRecordComponents()) {
      try {
        values.put(component.getName(), component.getAccessor().invoke(metrics));
      } catch (ReflectiveOperationException e) {
        values.put(component.getName(), "?");
      }
    }
    return values;
  }

  /** One line of the table: the measured attribute and its figures under each codec choice. */
  record Row(SessionSize.AttributeSize size, List<PayloadReport.Figures> figures) {
    public String name() {
      return size.name();
    }

    public boolean packed() {
      return size.place() == SessionSize.Place.PACK;
    }

    /** The class name without its package, for display; "?" when this node cannot decode it. */
    public String simpleType() {
      @Nullable String type = size.type();
      return type == null ? "?" : type.substring(type.lastIndexOf('.') + 1);
    }

    /** The pack share as a percentage, one decimal. */
    public String share() {
      return String.format(java.util.Locale.ROOT, "%.1f%%", size.packShare() * 100);
    }
  }
}
