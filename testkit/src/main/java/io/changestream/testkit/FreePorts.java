package io.changestream.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free local ports for a process a test starts, all distinct and held together while chosen (so two picks never
 * return the same port, nor one another's neighbour): the first also has its successor free, as the dev stack's KRaft
 * broker takes {@code port + 1} for its controller.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /**
     * {@code count} distinct free ports; the first one's successor is free too and none of the others is it.
     *
     * @throws IOException when no such set is found in 50 tries
     */
    public static int[] withPairFirst(int count) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            List<ServerSocket> held = new ArrayList<>();
            try {
                ServerSocket first = new ServerSocket(0);
                held.add(first);
                try {
                    held.add(new ServerSocket(first.getLocalPort() + 1));
                } catch (IOException taken) {
                    continue; // another first port
                }
                int[] ports = new int[count];
                ports[0] = first.getLocalPort();
                for (int i = 1; i < count; i++) {
                    ServerSocket s = new ServerSocket(0);
                    held.add(s);
                    ports[i] = s.getLocalPort();
                }
                return ports;
            } finally {
                for (ServerSocket s : held) {
                    s.close();
                }
            }
        }
        throw new IOException("no free port whose successor is free too");
    }
}
