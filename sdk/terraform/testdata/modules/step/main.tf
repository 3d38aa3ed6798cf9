# One resource replaced at every step, whose creation waits until the file
# $RELEASE_FILE exists, so a test can interrupt a later apply (an update)
# of the same state mid-way. The provisioner writes its shell's PID to
# $PID_FILE so the test can wait for it.

variable "step" {
  type = number
}

resource "terraform_data" "step" {
  triggers_replace = var.step
  input            = var.step

  provisioner "local-exec" {
    command = "echo $$ > \"$PID_FILE\"; until [ -f \"$RELEASE_FILE\" ]; do sleep 0.1; done"
  }
}

output "step" {
  value = terraform_data.step.output
}
