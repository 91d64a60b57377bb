; HCL / Terraform tags. A block is named by its type and labels the way Terraform
; addresses it (aws_s3_bucket.logs, data.aws_ami.ubuntu, module.vpc, var.region);
; rules_more.py builds the name and picks the kind.

(config_file (body (block (identifier) @name) @definition.struct))

(config_file
  (body
    (block
      (identifier)
      (body (attribute (identifier) @name) @definition.variable))))
