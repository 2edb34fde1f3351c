package io.lazysession.serializer.compat;

import org.springframework.beans.factory.DisposableBean;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A session-scoped bean with a destruction callback, as an application declares one. */
public class SessionScopedCart implements Serializable, DisposableBean {
  private static final long serialVersionUID = 1L;
  static final AtomicInteger DESTROYED = new AtomicInteger();

  final List<String> items = new ArrayList<>();

  @Override
  public void destroy() {
    DESTROYED.incrementAndGet();
  }
}
