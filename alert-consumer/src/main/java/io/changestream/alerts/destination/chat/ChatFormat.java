package io.changestream.alerts.destination.chat;

import io.changestream.alerts.destination.ChangeMessage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.model.SubscriptionType;

/**
 * The three chat message formats: Slack Block Kit, an MS Teams Adaptive Card message, a Google Chat
 * {@code cardsV2} message. Each renders a {@link ChangeMessage} within the platform's size limits. Stateless.
 */
public enum ChatFormat {

    /** Slack incoming webhook with Block Kit blocks (header, section with fields, changes, a link button). */
    SLACK(SubscriptionType.SLACK) {
        @Override
        public JsonNode render(ChangeMessage m) {
            ObjectNode root = F.objectNode();
            root.put("text", cut(m.title(), 3000));
            ArrayNode blocks = root.putArray("blocks");
            ObjectNode header = blocks.addObject().put("type", "header");
            header.putObject("text").put("type", "plain_text").put("text", cut(m.title(), 150));
            ObjectNode section = blocks.addObject().put("type", "section");
            section.putObject("text").put("type", "mrkdwn").put("text", "*Entity:* <" + m.link() + "|"
                    + escapeSlack(m.entity()) + ">");
            ArrayNode fields = section.putArray("fields");
            fields.addObject().put("type", "mrkdwn").put("text", "*By:*\n" + escapeSlack(m.who()));
            fields.addObject().put("type", "mrkdwn").put("text", "*When:*\n" + m.when());
            blocks.addObject().put("type", "section").putObject("text").put("type", "mrkdwn")
                    .put("text", cut(escapeSlack(m.changesText()), 3000));
            ObjectNode button = blocks.addObject().put("type", "actions").putArray("elements").addObject()
                    .put("type", "button").put("url", m.link());
            button.putObject("text").put("type", "plain_text").put("text", "Open in the platform");
            return root;
        }
    },

    /** MS Teams incoming webhook: a message with one Adaptive Card 1.4 attachment. */
    MS_TEAMS(SubscriptionType.MS_TEAMS) {
        @Override
        public JsonNode render(ChangeMessage m) {
            ObjectNode root = F.objectNode().put("type", "message");
            ObjectNode attachment = root.putArray("attachments").addObject()
                    .put("contentType", "application/vnd.microsoft.card.adaptive");
            ObjectNode card = attachment.putObject("content")
                    .put("$schema", "http://adaptivecards.io/schemas/adaptive-card.json")
                    .put("type", "AdaptiveCard").put("version", "1.4");
            ArrayNode body = card.putArray("body");
            body.addObject().put("type", "TextBlock").put("text", cut(m.title(), 500)).put("size", "Large")
                    .put("weight", "Bolder").put("wrap", true);
            ArrayNode facts = body.addObject().put("type", "FactSet").putArray("facts");
            facts.addObject().put("title", "Entity").put("value", m.entity());
            facts.addObject().put("title", "By").put("value", m.who());
            facts.addObject().put("title", "When").put("value", m.when());
            body.addObject().put("type", "TextBlock").put("text", cut(m.changesText(), 10_000)).put("wrap", true);
            card.putArray("actions").addObject().put("type", "Action.OpenUrl").put("title", "Open in the platform")
                    .put("url", m.link());
            return root;
        }
    },

    /** Google Chat incoming webhook: a {@code cardsV2} card with header, details and a link button. */
    G_CHAT(SubscriptionType.G_CHAT) {
        @Override
        public JsonNode render(ChangeMessage m) {
            ObjectNode root = F.objectNode().put("text", cut(m.title(), 4000));
            ObjectNode card = root.putArray("cardsV2").addObject().put("cardId", "changestream").putObject("card");
            card.putObject("header").put("title", cut(m.title(), 200)).put("subtitle", cut(m.entity(), 200));
            ArrayNode widgets = card.putArray("sections").addObject().putArray("widgets");
            widgets.addObject().putObject("decoratedText").put("topLabel", "By").put("text", m.who());
            widgets.addObject().putObject("decoratedText").put("topLabel", "When").put("text", m.when());
            widgets.addObject().putObject("textParagraph").put("text", cut(m.changesText(), 4000));
            ObjectNode button = widgets.addObject().putObject("buttonList").putArray("buttons").addObject()
                    .put("text", "Open in the platform");
            button.putObject("onClick").putObject("openLink").put("url", m.link());
            return root;
        }
    };

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final SubscriptionType type;

    ChatFormat(SubscriptionType type) {
        this.type = type;
    }

    /** The destination type using this format. */
    public SubscriptionType type() {
        return type;
    }

    /** The message body. */
    public abstract JsonNode render(ChangeMessage message);

    static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    private static String escapeSlack(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
