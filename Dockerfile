# One image for every changestream service: the launcher's fat jar; the compose file picks the command
# (cdc, alerts, logs, topics ...). Build context: the repository root.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
COPY settings settings
COPY web web
COPY testkit testkit
COPY topics topics
COPY state-manager state-manager
COPY consumer-runtime consumer-runtime
COPY cdc-connector cdc-connector
COPY alert-consumer alert-consumer
COPY log-tailer log-tailer
COPY ops ops
COPY bench/pom.xml bench/pom.xml
RUN mvn -B -q -pl ops -am package -DskipTests

FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 changestream \
    && mkdir -p /var/lib/changestream/logs && chown -R changestream /var/lib/changestream
COPY --from=build /src/ops/target/changestream.jar /opt/changestream/changestream.jar
USER changestream
WORKDIR /var/lib/changestream
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/opt/changestream/changestream.jar"]
CMD ["--help"]
