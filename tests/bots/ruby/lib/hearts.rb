# A first-legal Hearts bot's answers (docs/protocol.md): hello with version 1, pass the first
# `count` legal cards, play the first legal card, never declare, moon add_to_others.
require 'json'

module Hearts
  def self.answer(message, name)
    id = message['id']
    case message['type']
    when 'hello' then { type: 'hello', version: 1, name: name }
    when 'pass_request' then { type: 'pass', id: id, cards: message['legal'].first(message['count']) }
    when 'play_request' then { type: 'play', id: id, card: message['legal'].first }
    when 'declare_request' then { type: 'declare', id: id, declare: false }
    when 'moon_request' then { type: 'moon', id: id, choice: 'add_to_others' }
    end
  end

  def self.ends?(message)
    message['type'] == 'goodbye' || (message['type'] == 'error' && message['fatal'])
  end

  def self.play(name)
    $stdout.sync = true # flush every line: a reply left in the buffer is a timeout
    $stdin.each_line do |line|
      message = JSON.parse(line)
      reply = answer(message, name)
      if reply
        puts JSON.generate(reply)
      elsif ends?(message)
        break
      end
    end
  end
end
