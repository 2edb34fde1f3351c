package io.lazysession.redis.config;

import io.lazysession.serializer.SerializationException;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Answers 503 with {@code Retry-After} ({@link OutageResponses}) instead of a 500 when a request
 * fails because Redis is unavailable. Registered just before Spring Session's
 * {@code SessionRepositoryFilter}, so that it sees what that filter, Spring Security and the
 * application throw, including a save that fails when the response is committed, before the servlet
 * container would log the exception and render its error page. Failures of other kinds, and those
 * that strike after the response was committed, pass through unchanged. The outage itself is logged
 * once by the session store, so nothing is logged here. A save the store refused because a value
 * cannot be stored is logged once and answered with the application's error page instead
 * ({@link SaveRefusals}). Thread-safe (stateless).
 */
final class SessionStoreUnavailableFilter implements Filter {
  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    try {
      chain.doFilter(request, response);
    } catch (IOException | ServletException | RuntimeException e) {
      if (response.isCommitted() || !(response instanceof HttpServletResponse http)
          || !(request instanceof HttpServletRequest httpRequest)) {
        throw e;
      }
      SerializationException refused = SaveRefusals.refusal(e);
      if (refused != null) {
        SaveRefusals.respond(httpRequest, http, refused, e);
      } else if (OutageResponses.unavailable(e) != null) {
        respond(http);
      } else {
        throw e;
      }
    }
  }

  private static void respond(HttpServletResponse response) throws IOException {
    response.reset(); // drops what the failed request had set: headers, cookies, body
    response.setStatus(OutageResponses.STATUS);
    response.setHeader("Retry-After", OutageResponses.RETRY_AFTER_SECONDS);
    response.setHeader("Cache-Control", "no-store");
    response.setContentType(OutageResponses.CONTENT_TYPE);
    response.setContentLength(OutageResponses.BODY.length);
    response.getOutputStream().write(OutageResponses.BODY);
    response.flushBuffer();
  }
}
