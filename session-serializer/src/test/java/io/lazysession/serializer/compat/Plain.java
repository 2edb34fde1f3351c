package io.lazysession.serializer.compat;

/** A class that is not Serializable, as applications sometimes put in sessions. */
public class Plain {
  String name = "plain";
}
