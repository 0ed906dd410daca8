package io.blockscope.coprocessor.accounting;

import com.codahale.metrics.jmx.ObjectNameFactory;
import io.blockscope.metrics.MetricKeys;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** Names Dropwizard's JMX beans after {@link MetricKeys#objectName}. */
final class ObjectNames {
  private ObjectNames() {}

  static final ObjectNameFactory FACTORY =
      (type, domain, name) -> {
        try {
          return MetricKeys.objectName(name);
        } catch (MalformedObjectNameException e) {
          // Cannot happen for keys made by MetricKeys; a foreign metric gets a safe, quoted name.
          try {
            return new ObjectName(MetricKeys.DOMAIN + ":type=Other,name=" + ObjectName.quote(name));
          } catch (MalformedObjectNameException impossible) {
            throw new IllegalStateException(impossible);
          }
        }
      };
}
