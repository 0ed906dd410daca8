package io.blockscope.it;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;

/**
 * This JVM's platform MBeans behind an RMI connector on loopback, as a region server started with
 * {@code com.sun.management.jmxremote.port} offers them: what a JMX client or the Prometheus JMX
 * exporter connects to.
 */
final class LocalJmxConnector implements AutoCloseable {
  private final Registry rmi;
  private final JMXConnectorServer server;
  final JMXServiceURL url;

  LocalJmxConnector() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    rmi = LocateRegistry.createRegistry(port);
    url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
    server =
        JMXConnectorServerFactory.newJMXConnectorServer(
            url, null, ManagementFactory.getPlatformMBeanServer());
    server.start();
  }

  @Override
  public void close() throws IOException {
    server.stop();
    UnicastRemoteObject.unexportObject(rmi, true);
  }
}
