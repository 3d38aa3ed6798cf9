# A resource whose creation waits until the file $RELEASE_FILE exists, so a
# test can interrupt terraform mid-apply. The provisioner writes its shell's
# PID to $PID_FILE so the test can wait for it.

resource "terraform_data" "fast" {
  count = 3
  input = count.index
}

resource "terraform_data" "slow" {
  depends_on = [terraform_data.fast]
  input      = "slow"

  provisioner "local-exec" {
    command = "echo $$ > \"$PID_FILE\"; until [ -f \"$RELEASE_FILE\" ]; do sleep 0.1; done"
  }
}

output "slow" {
  value = terraform_data.slow.output
}
