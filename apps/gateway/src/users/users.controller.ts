import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { UpdateUserDto, type UserList, type UserView } from '@app/contracts';
import { Auth, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { UsersService } from './users.service.js';

/** `/v2/users`: the deployment's users, for its operators only (keys of scope `operator`). */
@ApiTags('Users')
@Auth({ key: 'bearer', operator: true })
@Resource('team')
@Controller('v2/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Operation('Every user of the deployment (operators only)', { returns: 'UserList' })
  async list(): Promise<UserList> {
    return { users: await this.users.list() };
  }

  @Patch(':userId')
  @Operation('Disable or enable a user, or exempt them from rate limits (operators only)', {
    returns: 'UserView',
    description: "A disabled user's keys and console sessions are refused on every gateway replica at once.",
  })
  update(@Param('userId') id: string, @Body() dto: UpdateUserDto): Promise<UserView> {
    return this.users.update(id, dto);
  }

  @Delete(':userId')
  @HttpCode(204)
  @Operation('Delete a user (operators only)', {
    description: 'Their keys are revoked and their memberships end.',
    errors: {
      400: "the user's own account still owns pods, clusters, endpoints, volumes, templates or credentials",
      409: 'the user is the last owner of a team',
    },
  })
  delete(@Param('userId') id: string): Promise<void> {
    return this.users.delete(id);
  }
}
