package io.lazysession.sample.web;

import io.lazysession.sample.shop.CheckoutWizard;
import jakarta.servlet.http.HttpSession;
import java.util.List;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * A two-step checkout whose state is a session-scoped bean ({@link CheckoutWizard}): the address step
 * fills it, the review step reads it, on whichever node serves each request. Signed-in users only (see
 * SecurityConfiguration).
 */
@Controller
class CheckoutController {
  static final List<String> DELIVERIES = List.of("standard", "express");

  private final CheckoutWizard wizard; // a proxy: each request reaches its own session's wizard

  CheckoutController(CheckoutWizard wizard) {
    this.wizard = wizard;
  }

  @GetMapping("/checkout")
  String address(HttpSession session, Model model) {
    model.addAttribute("wizard", wizard);
    model.addAttribute("deliveries", DELIVERIES);
    return ShopController.page("checkout", session, model);
  }

  @PostMapping("/checkout")
  String saveAddress(@RequestParam String recipient, @RequestParam String address,
      @RequestParam(defaultValue = "standard") String delivery) {
    wizard.deliverTo(recipient.strip(), address.strip(),
        DELIVERIES.contains(delivery) ? delivery : DELIVERIES.get(0));
    return "redirect:/checkout/review";
  }

  @GetMapping("/checkout/review")
  String review(HttpSession session, Model model) {
    if (!wizard.hasAddress()) {
      return "redirect:/checkout";
    }
    model.addAttribute("wizard", wizard);
    return ShopController.page("checkout-review", session, model);
  }
}
