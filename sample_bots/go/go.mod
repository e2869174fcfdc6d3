module hearts-bot

go 1.19
