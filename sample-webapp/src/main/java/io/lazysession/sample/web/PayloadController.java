package io.lazysession.sample.web;

import io.lazysession.redis.AttributeInfo;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazySession;
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
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;

/**
 * Shows what the current session costs: per attribute, its type, the bytes Redis holds for it, what it
 * would take under each codec and compression, and whether this request inflated it.
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
    Map<String, AttributeInfo> inflated = new LinkedHashMap<>();
    LazySession.current().ifPresent(current ->
        current.attributeInfo().forEach(info -> inflated.put(info.name(), info)));

    // The stored bytes and the values come from a separate copy, so that measuring (which decodes
    // every attribute) does not change what this request inflated.
    LazySession stored = repository.findById(session.getId());
    List<Row> rows = new ArrayList<>();
    model.addAttribute("rows", rows);
    model.addAttribute("choices", meter.choices().stream().map(PayloadMeter.Choice::label).toList());
    model.addAttribute("metrics", asMap(repository.metrics()));
    if (stored == null) {
      model.addAttribute("report", null);
      return "payload";
    }
    Map<String, Object> values = new LinkedHashMap<>();
    Map<String, Integer> storedBytes = new LinkedHashMap<>();
    List<String> undecodable = new ArrayList<>();
    for (AttributeInfo info : stored.attributeInfo()) {
      storedBytes.put(info.name(), info.storedBytes());
      try {
        Object value = stored.getAttribute(info.name());
        if (value != null) {
          values.put(info.name(), value);
        }
      } catch (SerializationException e) {
        undecodable.add(info.name() + ": " + e.getMessage());
      }
    }
    PayloadReport report = meter.measure(values);
    long totalStored = 0;
    for (PayloadReport.AttributeReport attribute : report.attributes()) {
      int bytes = storedBytes.getOrDefault(attribute.name(), -1);
      totalStored += Math.max(bytes, 0);
      AttributeInfo info = inflated.get(attribute.name());
      rows.add(new Row(attribute.name(), attribute.type(), bytes,
          info != null && info.inflated(), attribute.figures()));
    }
    model.addAttribute("report", report);
    model.addAttribute("totalStored", totalStored);
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

  /** One line of the page. */
  record Row(String name, String type, int storedBytes, boolean inflated,
      List<PayloadReport.Figures> figures) {

    /** The class name without its package, for display. */
    public String simpleType() {
      return type.substring(type.lastIndexOf('.') + 1);
    }
  }
}
