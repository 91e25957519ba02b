package io.changestream.alerts.destination.email;

import io.changestream.alerts.destination.Cancellation;
import io.changestream.alerts.destination.ChangeMessage;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Destination;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.Impacts;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.platform.PlatformUnavailableException;
import io.changestream.alerts.impact.Impact;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.topics.model.SubscriptionCategory;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;

/**
 * E-mail over SMTP (Angus Mail): a multipart/alternative message (text + HTML) to the union of the receivers of
 * the subscription's e-mail destinations, each resolved by its category ({@link EmailReceivers}: explicit
 * addresses, users, teams, owners, followers, admins, mentions through the platform's API), sent
 * synchronously — delivered only when the server accepted the message (the platform's async send counted a failed
 * mail as sent). SMTP 5xx, refused addresses and bad credentials are permanent; 4xx and connection problems are
 * retried; a platform that cannot say who the receivers are is retried too (never sent to fewer people); an event
 * whose roles resolve to nobody (an entity without owners) is settled without a message. Thread-safe (one
 * connection per delivery).
 */
public final class EmailDestination implements Destination {

    private final SmtpSettings smtp;
    private final MessageSettings messages;
    private final Session session;
    private final EmailReceivers receivers;
    private final ImpactResolver impact;

    /** Explicit receivers only (roles resolve to their listed addresses). */
    public EmailDestination(SmtpSettings smtp, MessageSettings messages) {
        this(smtp, messages, null);
    }

    /** Receivers by role through the platform's directory. */
    public EmailDestination(SmtpSettings smtp, MessageSettings messages, EmailReceivers receivers) {
        this(smtp, messages, receivers, null);
    }

    /** Receivers by role, and the failure impact for category DownstreamOwners (null: none). */
    public EmailDestination(SmtpSettings smtp, MessageSettings messages, EmailReceivers receivers,
                            ImpactResolver impact) {
        this.impact = impact;
        this.smtp = Objects.requireNonNull(smtp, "smtp");
        this.messages = Objects.requireNonNull(messages, "messages");
        this.receivers = receivers;
        Properties props = new Properties();
        props.put("mail.smtp.host", smtp.host());
        props.put("mail.smtp.port", Integer.toString(smtp.port()));
        props.put("mail.smtp.auth", Boolean.toString(smtp.username() != null));
        props.put("mail.smtp.starttls.enable", Boolean.toString(smtp.startTls()));
        props.put("mail.smtp.starttls.required", Boolean.toString(smtp.startTls()));
        props.put("mail.smtp.connectiontimeout", Long.toString(smtp.connectTimeout().toMillis()));
        props.put("mail.smtp.timeout", Long.toString(smtp.timeout().toMillis()));
        props.put("mail.smtp.writetimeout", Long.toString(smtp.timeout().toMillis()));
        // the SMTP client's sockets ignore interrupts: a cancelled send closes its socket (issue 21 item 1)
        props.put("mail.smtp.socketFactory", CANCELLABLE_SOCKETS);
        props.put("mail.smtp.socketFactory.fallback", "false");
        this.session = Session.getInstance(props);
    }

    /** Plain sockets that a cancel of the send creating them closes ({@link Cancellation#closeOnCancel}). */
    private static final javax.net.SocketFactory CANCELLABLE_SOCKETS = new javax.net.SocketFactory() {
        @Override
        public java.net.Socket createSocket() {
            return Cancellation.closeOnCancel(new java.net.Socket());
        }

        @Override
        public java.net.Socket createSocket(String host, int port) throws java.io.IOException {
            return Cancellation.closeOnCancel(new java.net.Socket(host, port));
        }

        @Override
        public java.net.Socket createSocket(String host, int port, java.net.InetAddress local, int localPort)
                throws java.io.IOException {
            return Cancellation.closeOnCancel(new java.net.Socket(host, port, local, localPort));
        }

        @Override
        public java.net.Socket createSocket(java.net.InetAddress host, int port) throws java.io.IOException {
            return Cancellation.closeOnCancel(new java.net.Socket(host, port));
        }

        @Override
        public java.net.Socket createSocket(java.net.InetAddress host, int port, java.net.InetAddress local,
                                            int localPort) throws java.io.IOException {
            return Cancellation.closeOnCancel(new java.net.Socket(host, port, local, localPort));
        }
    };

    @Override
    public SubscriptionType type() {
        return SubscriptionType.EMAIL;
    }

    /**
     * The receivers of a destination config ({@code receivers}, as the platform stores them).
     *
     * @throws DestinationConfigException when there are none or one is not an address
     */
    public static List<InternetAddress> receivers(JsonNode config) {
        JsonNode list = config == null ? null : config.get("receivers");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new DestinationConfigException("config.receivers", "at least one e-mail address is required");
        }
        List<InternetAddress> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            try {
                out.add(new InternetAddress(list.get(i).asText(), true));
            } catch (AddressException e) {
                throw new DestinationConfigException("config.receivers[" + i + "]", "is not an e-mail address");
            }
        }
        return out;
    }

    @Override
    public DeliveryResult deliver(DeliveryRequest request) {
        List<InternetAddress> to;
        Impact known = Impacts.wanted(request, impact) ? Impacts.of(request, impact).join() : null;
        try {
            to = receiversOf(request, known);
        } catch (DestinationConfigException e) {
            return DeliveryResult.permanent(e.getMessage());
        } catch (PlatformUnavailableException e) {
            return DeliveryResult.retry(null, "receivers unknown: " + e.getMessage());
        }
        if (to.isEmpty()) {
            return DeliveryResult.skipped("the destination's receivers and roles select nobody for this event");
        }
        ChangeMessage m = request.event() != null ? ChangeMessage.of(request.event(), messages)
                : known != null ? ChangeMessage.of(request.runStatus(), messages, known, impact.settings().topAssets())
                : ChangeMessage.of(request.runStatus(), messages);
        return send(to, "[" + request.subscription().name() + "] " + m.title(), plain(m), html(m),
                request.idempotencyKey());
    }

    /**
     * The receivers of a request: its config's list, or (with a directory) every e-mail destination of the
     * subscription resolved by category; empty when roles resolve to nobody.
     */
    public List<InternetAddress> receiversOf(DeliveryRequest request) {
        return receiversOf(request, null);
    }

    /**
     * The receivers of a request; for a run status only the DownstreamOwners destinations count (the owners of the
     * impacted assets), for a change event all others.
     */
    public List<InternetAddress> receiversOf(DeliveryRequest request, Impact known) {
        if (receivers == null) {
            return receivers(request.destination().config());
        }
        boolean run = request.runStatus() != null;
        List<SubscriptionDestination> all = request.subscription().activeDestinations().stream()
                .filter(d -> d.type() == SubscriptionType.EMAIL)
                .filter(d -> run == (d.category() == SubscriptionCategory.DOWNSTREAM_OWNERS)).toList();
        all.forEach(EmailReceivers::validate);
        return List.copyOf(receivers.resolve(all.isEmpty() ? List.of(request.destination()) : all,
                request.event(), known));
    }

    /** Sends one composed message (plain and HTML alternatives) to the receivers. */
    public DeliveryResult send(List<InternetAddress> to, String subject, String plain, String html,
                               String idempotencyKey) {
        try {
            MimeMessage message = new MimeMessage(session);
            message.setFrom(new InternetAddress(smtp.from()));
            message.setRecipients(Message.RecipientType.TO, to.toArray(new InternetAddress[0]));
            message.setSubject(subject, "UTF-8");
            message.setSentDate(new Date());
            message.setHeader("Idempotency-Key", idempotencyKey);
            MimeBodyPart text = new MimeBodyPart();
            text.setText(plain, "UTF-8");
            MimeBodyPart htmlPart = new MimeBodyPart();
            htmlPart.setContent(html, "text/html; charset=UTF-8");
            message.setContent(new MimeMultipart("alternative", text, htmlPart));
            message.saveChanges();
            try (Transport transport = session.getTransport("smtp")) {
                transport.connect(smtp.host(), smtp.port(), smtp.username(), smtp.password());
                transport.sendMessage(message, message.getAllRecipients());
            }
            return DeliveryResult.delivered();
        } catch (AuthenticationFailedException e) {
            return DeliveryResult.permanent("SMTP authentication failed");
        } catch (SMTPSendFailedException e) {
            return byCode(e.getReturnCode(), "SMTP server rejected the message: " + e.getMessage().strip());
        } catch (SendFailedException e) {
            Exception next = e.getNextException();
            if (next instanceof SMTPAddressFailedException address) {
                return byCode(address.getReturnCode(), "SMTP server refused " + address.getAddress() + ": "
                        + address.getMessage().strip());
            }
            return DeliveryResult.permanent("SMTP server refused the recipients: " + e.getMessage());
        } catch (MessagingException e) {
            return DeliveryResult.retry(null, "SMTP delivery failed: " + e.getMessage());
        }
    }

    private static DeliveryResult byCode(int code, String reason) {
        return code >= 400 && code < 500 ? DeliveryResult.retry(null, reason) : DeliveryResult.permanent(reason);
    }

    private static String plain(ChangeMessage m) {
        return m.title() + "\n\nEntity: " + m.entity() + "\nBy: " + m.who() + "\nWhen: " + m.when() + "\n\n"
                + m.changesText() + "\n\n" + m.link() + "\n";
    }

    private static String html(ChangeMessage m) {
        StringBuilder changes = new StringBuilder();
        for (String line : m.changes()) {
            changes.append("<li>").append(escape(line)).append("</li>");
        }
        return "<html><body><h2>" + escape(m.title()) + "</h2><table>"
                + "<tr><th align=\"left\">Entity</th><td>" + escape(m.entity()) + "</td></tr>"
                + "<tr><th align=\"left\">By</th><td>" + escape(m.who()) + "</td></tr>"
                + "<tr><th align=\"left\">When</th><td>" + escape(m.when()) + "</td></tr></table>"
                + (changes.length() == 0 ? "<p>No field changes recorded.</p>" : "<ul>" + changes + "</ul>")
                + "<p><a href=\"" + escape(m.link()) + "\">Open in the platform</a></p></body></html>";
    }

    public static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
