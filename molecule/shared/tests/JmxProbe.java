import java.io.FileInputStream;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;

/**
 * A JMX client as a monitoring system would be one: reads a broker's state over remote JMX.
 *
 * <p>Arguments: host port user password ca-certificate-PEM tls|plain. With tls, the RMI registry and the
 * connector are reached over TLS, trusting only the given CA (the way jconsole is run with a trust store).
 * Prints "BrokerState <value>" and exits 0, or prints the refusal as the client saw it and exits 1.
 */
public class JmxProbe {
    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        boolean tls = "tls".equals(args[5]);
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (FileInputStream in = new FileInputStream(args[4])) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        // The RMI SSL socket factories use the default context.
        SSLContext.setDefault(context);

        Map<String, Object> environment = new HashMap<>();
        environment.put(JMXConnector.CREDENTIALS, new String[] {args[2], args[3]});
        if (tls) {
            environment.put("com.sun.jndi.rmi.factory.socket", new SslRMIClientSocketFactory());
        }
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
        try (JMXConnector connector = JMXConnectorFactory.connect(url, environment)) {
            Object state = connector.getMBeanServerConnection()
                .getAttribute(new ObjectName("kafka.server:type=KafkaServer,name=BrokerState"), "Value");
            System.out.println("BrokerState " + state);
        } catch (Exception refused) {
            System.out.println("refused: " + refused);
            System.exit(1);
        }
    }
}
