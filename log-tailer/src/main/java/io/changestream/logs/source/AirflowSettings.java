package io.changestream.logs.source;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how to read the platform's Airflow plugin ({@code openmetadata-managed-apis}) log endpoint
 * {@code GET <url>/<apiPath>/last_dag_logs?dag_id=&task_id=&after=}. Immutable; validated in the constructor naming
 * the setting; {@link #toString()} masks the password and the token.
 *
 * @param url      {@code airflow.url}: Airflow's base URL, e.g. {@code http://airflow:8080}
 * @param apiPath  {@code airflow.apiPath} ({@code api/v1/openmetadata}; Airflow 3 deployments serve
 *                 {@code api/v2/openmetadata})
 * @param taskId   {@code airflow.taskId} ({@code ingestion_task}): the task whose log is read — the platform maps a
 *                 metadata pipeline to {@code ingestion_task}, profiler to {@code profiler_task}, …
 * @param username {@code airflow.username}: basic auth user (with {@code airflow.password}), as the platform's
 *                 Airflow client sends it
 * @param password {@code airflow.password}: basic auth password (secret)
 * @param token    {@code airflow.token}: a bearer token instead of basic auth (secret)
 * @param timeout  {@code airflow.timeoutMillis} (5000): connect and request timeout of one call
 */
public record AirflowSettings(URI url, String apiPath, String taskId, String username, String password, String token,
                              Duration timeout) {

    public AirflowSettings {
        Objects.requireNonNull(url, "airflow.url");
        if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
            throw new IllegalArgumentException("airflow.url must be an http(s) URL, was " + url);
        }
        if (apiPath == null || apiPath.isBlank()) {
            throw new IllegalArgumentException("airflow.apiPath must not be blank");
        }
        apiPath = apiPath.replaceAll("^/+|/+$", "");
        if (taskId == null || !taskId.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("airflow.taskId must match [A-Za-z0-9._-]+, was " + taskId);
        }
        if ((username == null) != (password == null)) {
            throw new IllegalArgumentException("airflow.username and airflow.password go together (basic auth)");
        }
        if (username != null && token != null) {
            throw new IllegalArgumentException("set airflow.token or airflow.username/password, not both");
        }
        if (timeout == null || timeout.toMillis() <= 0) {
            throw new IllegalArgumentException("airflow.timeoutMillis must be > 0");
        }
    }

    /** Secrets masked. */
    @Override
    public String toString() {
        return "AirflowSettings[url=" + url + ", apiPath=" + apiPath + ", taskId=" + taskId + ", username=" + username
                + ", password=" + (password == null ? null : "******") + ", token="
                + (token == null ? null : "******") + ", timeout=" + timeout + "]";
    }
}
