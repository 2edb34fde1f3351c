package io.lazysession.sample;

import jakarta.servlet.http.HttpSession;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The landing page: says which node served the request and counts visits in the session. */
@RestController
class HomeController {

  @GetMapping(value = "/", produces = MediaType.TEXT_HTML_VALUE)
  String home(HttpSession session) {
    Integer visits = (Integer) session.getAttribute("visits");
    int count = visits == null ? 1 : visits + 1;
    session.setAttribute("visits", count);
    return "<!doctype html><html><head><title>lazysession sample</title></head><body>"
        + "<h1>lazysession sample</h1><p>Visits in this session: <b id=\"visits\">" + count
        + "</b></p><p>Session: <code>" + session.getId() + "</code></p></body></html>";
  }
}
