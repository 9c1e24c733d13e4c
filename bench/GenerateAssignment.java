// What `kafka-reassign-partitions --generate` would propose, without a cluster: for each topic it calls
// Kafka's own AdminUtils.assignReplicasToBrokers(brokers, partitions, replication factor), the call the
// tool makes for every topic it is given (the brokers come with their racks unless the tool is run with
// --disable-rack-aware). That call draws its start index and replica shift from an unseeded Random, as
// the tool does, so two runs on the same input differ.
//
// Compiled and run by bench/kafka_generate.py against the jars of a Kafka archive (kafka-server-common
// holds AdminUtils and BrokerMetadata in Kafka 3.9).
//
// Input on stdin, one item a line:
//   broker <id> [<rack>]
//   topic <name> <partitions> <replication factor>
// Output on stdout, one partition a line: <topic> <partition> <broker>,<broker>,...
// The last line is "# assignment ms <milliseconds spent in assignReplicasToBrokers>".

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.admin.AdminUtils;
import org.apache.kafka.admin.BrokerMetadata;

public class GenerateAssignment {
    public static void main(String[] arguments) throws Exception {
        List<BrokerMetadata> brokers = new ArrayList<>();
        List<String[]> topics = new ArrayList<>();
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = input.readLine(); line != null; line = input.readLine()) {
            String[] fields = line.trim().split("\\s+");
            if (fields[0].equals("broker")) {
                Optional<String> rack = fields.length > 2 ? Optional.of(fields[2]) : Optional.empty();
                brokers.add(new BrokerMetadata(Integer.parseInt(fields[1]), rack));
            } else if (fields[0].equals("topic")) {
                topics.add(fields);
            } else if (!fields[0].isEmpty()) {
                throw new IllegalArgumentException("neither a broker nor a topic: " + line);
            }
        }
        BufferedWriter output = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        long spent = 0;
        for (String[] topic : topics) {
            long started = System.nanoTime();
            Map<Integer, List<Integer>> assignment = AdminUtils.assignReplicasToBrokers(
                brokers, Integer.parseInt(topic[2]), Integer.parseInt(topic[3]));
            spent += System.nanoTime() - started;
            for (Map.Entry<Integer, List<Integer>> entry : assignment.entrySet()) {
                output.write(topic[1]);
                output.write(' ');
                output.write(Integer.toString(entry.getKey()));
                output.write(' ');
                List<Integer> replicas = entry.getValue();
                for (int index = 0; index < replicas.size(); index++) {
                    if (index > 0) {
                        output.write(',');
                    }
                    output.write(Integer.toString(replicas.get(index)));
                }
                output.write('\n');
            }
        }
        output.write("# assignment ms " + (spent / 1000000) + "\n");
        output.flush();
    }
}
