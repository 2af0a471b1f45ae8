output.speed = {
    slow: 40
}

output.timeout = {
    slow: 20000
}

output.element = {
    id: "maestro"
}
