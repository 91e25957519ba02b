package io.changestream.logs.source;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Where and how to read the platform's Airflow plugin ({@code openmetadata-managed-apis}) log endpoint
 * {@code GET <url>/<apiPath>/last_dag_logs?dag_id=&task_id=&after=}. Each {@code airflow.*} setting is declared once
 * ({@link #SETTINGS}). Immutable; validated in the constructor naming the setting; {@link #toString()} masks the
 * password and the token.
 *
 * @param url      {@link #URL}: Airflow's base URL, e.g. {@code http://airflow:8080}
 * @param apiPath  {@link #API_PATH} (Airflow 3 deployments serve {@code api/v2/openmetadata})
 * @param taskId   {@link #TASK_ID}: the task whose log is read — the platform maps a metadata pipeline to
 *                 {@code ingestion_task}, profiler to {@code profiler_task}, …
 * @param username {@link #USERNAME}: basic auth user (with {@code airflow.password}), as the platform's Airflow
 *                 client sends it
 * @param password {@link #PASSWORD}: basic auth password (secret)
 * @param token    {@link #TOKEN}: a bearer token instead of basic auth (secret)
 * @param timeout  {@link #TIMEOUT}: connect and request timeout of one call
 */
public record AirflowSettings(URI url, String apiPath, String taskId, String username, String password, String token,
                              Duration timeout) {

    public static final Setting<URI> URL = Setting.httpUrl("airflow.url")
            .doc("the platform's Airflow plugin (…/last_dag_logs), enabled when set");
    public static final Setting<String> API_PATH = Setting.string("airflow.apiPath").defaultsTo("api/v1/openmetadata")
            .notBlank()
            .doc("the plugin's path; Airflow 3 serves api/v2/openmetadata");
    public static final Setting<String> TASK_ID = Setting.string("airflow.taskId").defaultsTo("ingestion_task")
            .matching("[A-Za-z0-9._-]+").doc("task whose log is read");
    public static final Setting<String> USERNAME = Setting.string("airflow.username")
            .doc("basic auth user, with airflow.password");
    public static final Setting<String> PASSWORD = Setting.string("airflow.password").secret()
            .doc("basic auth password");
    public static final Setting<String> TOKEN = Setting.string("airflow.token").secret()
            .doc("a bearer token instead of basic auth");
    public static final Setting<Duration> TIMEOUT = Setting.millis("airflow.timeoutMillis")
            .defaultsTo(Duration.ofMillis(5000)).positive()
            .doc("connect and request timeout of one Airflow call");

    /** Every {@code airflow.*} setting of the endpoint (the read limits: {@link ReadLimits}). */
    public static final List<Setting<?>> SETTINGS = List.of(URL, API_PATH, TASK_ID, USERNAME, PASSWORD, TOKEN,
            TIMEOUT);

    public AirflowSettings {
        URL.check(url);
        apiPath = API_PATH.check(apiPath).replaceAll("^/+|/+$", "");
        TASK_ID.check(taskId);
        if ((username == null) != (password == null)) {
            throw new IllegalArgumentException(USERNAME.key() + " and " + PASSWORD.key() + " go together (basic auth)");
        }
        if (username != null && token != null) {
            throw new IllegalArgumentException("set " + TOKEN.key() + " or " + USERNAME.key() + "/password, not both");
        }
        TIMEOUT.check(timeout);
    }

    /**
     * The {@code airflow.*} settings {@code settings} gives, absent ones at their defaults; null when
     * {@code airflow.url} is unset (the backend is off). The other keys are then neither used nor checked.
     */
    public static AirflowSettings from(SettingsReader settings) {
        if (!settings.isSet(URL)) {
            settings.accept(SETTINGS); // the backend is off: its other settings are not used, nor checked
            return null;
        }
        return new AirflowSettings(settings.get(URL), settings.get(API_PATH), settings.get(TASK_ID),
                settings.get(USERNAME), settings.get(PASSWORD), settings.get(TOKEN), settings.get(TIMEOUT));
    }

    /** Every component, the password and the token masked ({@link ConfigText}). */
    @Override
    public String toString() {
        return ConfigText.describe(this);
    }
}
