# frozen_string_literal: true

require 'net/smtp'

module Notifications
  class DeliveryError < StandardError; end

  class Mailer
    attr_reader :host

    def initialize(host:, port: 25)
      @host = host
      @port = port
    end

    def deliver(to:, subject:, body:)
      message = build(to, subject, body)
      Net::SMTP.start(@host, @port) do |smtp|
        smtp.send_message(message, 'noreply@example.com', to)
      end
    rescue Net::SMTPError => e
      raise DeliveryError, e.message
    end

    def self.default
      new(host: ENV.fetch('SMTP_HOST', 'localhost'))
    end

    private

    def build(to, subject, body)
      <<~MAIL
        To: #{to}
        Subject: #{subject}

        #{body}
      MAIL
    end
  end

  def self.enabled?
    ENV['MAIL_DISABLED'].nil?
  end
end
