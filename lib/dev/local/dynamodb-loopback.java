// DynamoDB Local's command line has no address flag and binds every interface; this runs it with its Jetty
// connector set to 127.0.0.1 first. Compiled once by lib/dev/local/dynamodb-loopback.ts. Telemetry is never
// configured here, so none is sent.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.CommandLineInput;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

class DynamoDbLoopback {
  public static void main(String[] args) throws Exception {
    if (!new CommandLineInput(args).init()) return;
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // The proxy keeps its Jetty server private and starts it as is: set the address before start().
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    int bound = 0;
    for (Connector connector : ((Server) field.get(proxy)).getConnectors()) {
      if (connector instanceof ServerConnector serverConnector) {
        serverConnector.setHost("127.0.0.1");
        bound++;
      }
    }
    if (bound == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind to 127.0.0.1");
    proxy.start();
  }
}
