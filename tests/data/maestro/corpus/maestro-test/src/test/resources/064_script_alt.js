output.sharedResult = 'Sub'
output.subFlow = {
  result: 'Sub'
}
output.subFlowFileName = MAESTRO_FILENAME
