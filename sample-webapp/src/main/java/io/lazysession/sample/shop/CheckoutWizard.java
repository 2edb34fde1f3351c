package io.lazysession.sample.shop;

import java.io.Serial;
import java.io.Serializable;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;
import org.springframework.web.context.annotation.SessionScope;

/**
 * The checkout in progress, one per HTTP session ({@link SessionScope}): the first step records where
 * to deliver, the second reviews it. Spring keeps the bean itself in the session (attribute
 * {@code scopedTarget.checkoutWizard}, next to its destruction callback), so the step after this one may
 * run on another node. Not thread-safe: Spring's session mutex is not used, a session's requests are
 * expected one at a time, as a wizard's are.
 */
@Component
@SessionScope
public class CheckoutWizard implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private @Nullable String recipient;
  private @Nullable String address;
  private String delivery = "standard";

  public void deliverTo(String recipient, String address, String delivery) {
    this.recipient = recipient;
    this.address = address;
    this.delivery = delivery;
  }

  /** Whether the first step is done. */
  public boolean hasAddress() {
    return recipient != null && address != null;
  }

  public @Nullable String recipient() {
    return recipient;
  }

  public @Nullable String address() {
    return address;
  }

  public String delivery() {
    return delivery;
  }
}
