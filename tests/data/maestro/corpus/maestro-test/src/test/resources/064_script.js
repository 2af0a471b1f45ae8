output.sharedResult = 'Main'
output.mainFlow = {
  result: 'Main'
}
output.fileName = MAESTRO_FILENAME
